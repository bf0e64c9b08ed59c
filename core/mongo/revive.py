"""The database comes back by itself: telling "the database is unreachable" apart, and
starting the local server again when a process finds it gone.

A process that finds the local server gone (a request failed to reach it,
``/healthz`` got no answer, or pymongo's monitor lost it) calls
``revive_soon()``: one background thread of that process runs
``LocalServer.ensure_running()``, which starts the server again, under the
data directory's start-up lock, on the port kept for that directory. The
process's pymongo client keeps that address and reconnects by itself, so
nothing else needs to change. The thread is in the background so that the
request that noticed answers at once (a 503 page, ``core.unavailable``).

With ``MONGODB_URI`` set, the shop does not run the database: nothing is
started here, the shop answers 503 until that server is back.
"""

import logging
import os
import threading
import time

from pymongo.errors import ConnectionFailure
from pymongo.monitoring import ServerHeartbeatListener

from .localserver import LocalServer, LocalServerError

logger = logging.getLogger(__name__)

#: Seconds between two starts from one process (a server that cannot start is not retried in a loop).
RETRY_SECONDS = 2.0

_lock = threading.Lock()
_thread = None
_last_attempt = 0.0
_disabled = False


def disable():
    """Never start the server again from this process (``manage.py dbserver``, which stops
    it on purpose: its own client must not bring it back; gunicorn's master, whose client
    is closed before it forks the workers)."""
    global _disabled
    _disabled = True


def enable():
    """Undo ``disable()`` (a gunicorn worker, forked from the master that disabled it)."""
    global _disabled
    _disabled = False


def _after_fork_in_child():
    # A thread of the parent may have held the lock, or been restarting, when it forked:
    # in the child that thread does not exist, so the lock and its record start afresh.
    global _lock, _thread
    _lock = threading.Lock()
    _thread = None


os.register_at_fork(after_in_child=_after_fork_in_child)


def is_unavailable(exc):
    """True when ``exc`` (an exception) says the database cannot be reached: pymongo's
    ``ConnectionFailure`` family (server selection timed out, connection refused or
    reset, network timeout) or a ``LocalServerError``, also as the cause or context
    of another exception. A query error, a duplicate key and the like are not."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (ConnectionFailure, LocalServerError)):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _restart(data_dir):
    started = time.monotonic()
    try:
        uri = LocalServer(data_dir).ensure_running()
    except LocalServerError as exc:
        logger.error("The local database server could not be started again: %s", exc)
    except Exception:  # a background thread: log what went wrong rather than die silently
        logger.exception("The local database server could not be started again.")
    else:
        logger.warning("The local database server answers at %s (checked or started again in %.1f s).",
                       uri, time.monotonic() - started)


def revive_soon(alias="default"):
    """Start the local server of the database ``alias`` again in a background thread, when it
    is the local one and no such thread runs in this process already.

    Returns the thread (``threading.Thread``) started, or None (``MONGODB_URI`` set,
    ``disable()``d, one already running, or the last attempt less than ``RETRY_SECONDS`` ago).
    """
    global _thread, _last_attempt
    from django.conf import settings
    from django.db import connections

    if _disabled or not connections[alias].is_local:
        return None
    with _lock:
        if _thread is not None and _thread.is_alive():
            return None
        if time.monotonic() - _last_attempt < RETRY_SECONDS:
            return None
        _last_attempt = time.monotonic()
        _thread = threading.Thread(target=_restart, args=(settings.SHOP_LOCAL_DB_DIR,),
                                   name="shop-db-revive", daemon=True)
        _thread.start()
        return _thread


class ReviveOnHeartbeatFailure(ServerHeartbeatListener):
    """A pymongo listener: when the client's monitor gets no answer from the local server,
    ``revive_soon()``, so that the server comes back even before a request needs it.

    Added to the local server's client only (``core.mongo.base``).
    """

    def __init__(self, alias="default"):
        self.alias = alias

    def started(self, event):
        pass

    def succeeded(self, event):
        pass

    def failed(self, event):
        revive_soon(self.alias)
