"""``/healthz``: does every configured MongoDB answer a ping?"""

import logging

import pymongo
from django.conf import settings
from django.db import Error as DatabaseError
from django.db import connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from pymongo.errors import PyMongoError

from core.mongo import engine
from core.mongo.localserver import LocalServerError
from core.mongo.revive import revive_soon

logger = logging.getLogger(__name__)


def ping(alias="default"):
    """Ping the database ``alias`` within ``SHOP_HEALTHZ_TIMEOUT`` seconds.

    Returns None when it answers, else a one-line reason (str). A server
    that does not answer costs at most the timeout (pymongo's client-side
    operation timeout, which bounds server selection too), never a hang.
    A local server that does not answer is started again in the background
    (``core.mongo.revive``); this answer still says it is down.
    """
    connection = connections[alias]
    try:
        with pymongo.timeout(settings.SHOP_HEALTHZ_TIMEOUT):
            connection.ensure_connection()
            connection.connection.admin.command("ping")
    except (PyMongoError, DatabaseError, LocalServerError) as exc:
        logger.warning("Health check: database %r does not answer: %s", alias, str(exc).splitlines()[0])
        revive_soon(alias)
        return type(exc).__name__
    return None


@never_cache
def healthz(request):
    """200 ``{"status": "ok", "engine": ..., "databases": {...}}`` when every database
    answers a ping, else 503 with ``"status": "unavailable"``.

    ``engine`` is the engine of the default database: ``"local"`` (the shop's own server) or
    ``"mongodb"``. Each database reports ``{"engine", "ok"}`` and, when down,
    the exception's class name (nothing more: the answer is public).
    """
    databases = {}
    for alias in connections:
        reason = ping(alias)
        databases[alias] = {"engine": engine(alias), "ok": reason is None}
        if reason:
            databases[alias]["error"] = reason
    ok = all(db["ok"] for db in databases.values())
    return JsonResponse(
        {"status": "ok" if ok else "unavailable", "engine": engine(), "databases": databases},
        status=200 if ok else 503,
    )
