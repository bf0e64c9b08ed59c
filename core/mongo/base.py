"""The shop's Django database backend: django-mongodb-backend over the wire, on every server.

``ENGINE = "core.mongo"`` in settings. With a ``HOST`` (the ``MONGODB_URI``
setting) it talks to that MongoDB; without one it talks to the local
SecantusDB server (``core.mongo.localserver``), starting it when this is the
(docs/local-server-differences.md: local-server difference 15)
first process that needs it. Either way it is pymongo over the wire, with
the shop's command counter (``core.mongo.counter``) attached to the client,
the compiler shim of ``core.mongo.compiler`` and the escaping of
case-insensitive exact matches (``DatabaseOperations.prep_for_iexact_query``). On the local server the
client also watches its heartbeats: when the server is gone, the process
starts it again (``core.mongo.revive``).
"""

import ctypes.util
import functools
import re
from contextlib import contextmanager

from django.conf import settings


@contextmanager
def _find_library_remembered():
    """``ctypes.util.find_library`` remembering its answers while django-mongodb-backend loads.

    The backend looks for GeoDjango's GDAL in three of its modules (``features``,
    ``operations``, ``gis``), each time importing ``django.contrib.gis.gdal.libgdal`` anew, which
    asks ``find_library`` for 12 library names; on Linux each asking runs ``ldconfig`` and,
    when that finds nothing, ``gcc`` and ``ld``. Where GDAL is not installed (the shop uses no
    GIS) that was about 0.65 s of every process's start: each ``manage.py`` command, each
    gunicorn worker. A library's path cannot change while the modules load."""
    original = ctypes.util.find_library
    ctypes.util.find_library = functools.cache(original)
    try:
        yield
    finally:
        ctypes.util.find_library = original


with _find_library_remembered():
    from django_mongodb_backend.base import DatabaseWrapper as MongoDatabaseWrapper
    from django_mongodb_backend.operations import DatabaseOperations as MongoDatabaseOperations

from .counter import CommandCounter
from .localserver import LocalServer
from .revive import ReviveOnHeartbeatFailure
from .schema import DatabaseSchemaEditor


class DatabaseOperations(MongoDatabaseOperations):
    """django-mongodb-backend's operations, with every pattern lookup's text escaped."""

    # Queries are compiled by the shop's subclasses (see core/mongo/compiler.py).
    compiler_module = "core.mongo.compiler"

    def prep_for_iexact_query(self, x):
        """``x`` (any value; str() of it) as a regular expression matching exactly that text.

        The one place that makes ``iexact`` safe (``email__iexact`` in Django's
        password reset form, ``=field`` in an admin's ``search_fields``, ``__iexact``
        in an admin URL). django-mongodb-backend 5.2.4 turns ``iexact`` into
        ``{"$regex": "^<value>$", "$options": "i"}`` and overrides
        ``prep_for_like_query`` with ``re.escape`` (so ``contains``, ``startswith``,
        ``endswith`` and their ``i`` forms are escaped), but Django's base class binds
        ``prep_for_iexact_query = prep_for_like_query`` to its own SQL LIKE escaping
        (only ``\\ % _``): the value reached the server as a pattern, and
        ``a.*.*.*.*!@x.co`` backtracks without end on a server whose ``$regex`` has no
        time limit (SecantusDB evaluates it with Python's ``re``). ``re.escape`` leaves
        only literal characters, which MongoDB's PCRE reads the same way.
        ``tests/shop/test_regex_escaping.py`` checks every pattern lookup's ``$regex``.
        """
        return re.escape(str(x))


class DatabaseWrapper(MongoDatabaseWrapper):
    """django-mongodb-backend's wrapper; without ``HOST``, on the local server."""

    ops_class = DatabaseOperations
    SchemaEditorClass = DatabaseSchemaEditor

    @property
    def is_local(self):
        """True when no ``HOST`` is configured and the local server holds the data."""
        return not self.settings_dict["HOST"]

    def get_connection_params(self):
        params = super().get_connection_params()
        listeners = [*params.get("event_listeners", ()), CommandCounter()]
        if self.is_local:
            listeners.append(ReviveOnHeartbeatFailure(self.alias))
            # When this process's client exists (another thread made it), get_new_connection
            # reuses it as is, on the kept port, reconnecting by itself: asking for the server
            # here would only block this thread while another process restarts it. For the
            # same reason a first client does not wait for another process's restart
            # (wait=False): it connects to the kept port once the server answers there.
            if self.alias not in self._connection_pools:
                params["host"] = LocalServer(settings.SHOP_LOCAL_DB_DIR).ensure_running(wait=False)
        params["event_listeners"] = listeners
        return params
