"""gunicorn's configuration for the shop: ``gunicorn -c gunicorn.conf.py``
(gunicorn also reads this file by default when started from this directory).

Environment:
  GUNICORN_BIND       address to listen on (default 127.0.0.1:8000; a reverse
                      proxy terminating TLS sits in front)
  WEB_CONCURRENCY     worker processes (default 2). Every worker talks to the
                      same database: MONGODB_URI, or the one local server.
  GUNICORN_THREADS    threads per worker (default 8; gthread worker)
  GUNICORN_LOG_LEVEL  gunicorn's own log level (default info)
  FORWARDED_ALLOW_IPS proxies trusted for X-Forwarded-Proto (gunicorn's own
                      variable; default 127.0.0.1)
"""

import os

wsgi_app = "shop.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = "gthread"
timeout = 30
graceful_timeout = 30
keepalive = 5
# The shop logs one line per request itself (core.middleware.RequestLogMiddleware).
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")


def on_starting(server):
    """In the master, before any worker: prepare the database once (``shop.startup``: on the
    local server, start it, migrate, load the demo into an empty database).

    A worker is killed when it does not answer within ``timeout`` seconds, so the
    first start (migrations, the demo catalog) is not left to the workers' boot.
    When the local server cannot be used, it logs the one-line reason and exits 1.
    The workers are told it is done (``SHOP_DATABASE_PREPARED``), and the master's
    client is closed before they fork (pymongo clients are not fork-safe).
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
    import django

    django.setup()
    from django.db import connections

    from core.mongo import revive
    from core.mongo.localserver import LocalServerError
    from shop.staffpasswords import WeakStaffPassword, check_staff_passwords
    from shop.startup import PaymentsRefused, prepare_local_database, prepare_payments, startup_failure

    try:
        prepare_payments()
    except PaymentsRefused as exc:
        # Production on a fake payment provider, or without Stripe's keys: one line, exit 1.
        server.log.error(f"The shop cannot start: {exc}")
        raise SystemExit(1) from None
    try:
        prepare_local_database()
        check_staff_passwords()
    except (LocalServerError, WeakStaffPassword) as exc:
        # A read-only data directory, a taken port, a staff account with a common password:
        # one line, no traceback, exit 1.
        server.log.error(startup_failure(exc))
        raise SystemExit(1) from None
    # The master's client closes: its monitor's last, failed heartbeat must not start a
    # restart thread in the master (core.mongo.revive); the workers enable it again (post_fork).
    revive.disable()
    for alias in connections:
        connections[alias].close_pool()
    os.environ["SHOP_DATABASE_PREPARED"] = "1"


def post_fork(server, worker):
    """In each worker: start the local server again when it is found gone (``core.mongo.revive``),
    which the master switched off for itself."""
    from core.mongo import revive

    revive.enable()
