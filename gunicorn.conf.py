"""gunicorn's configuration for the shop: ``gunicorn -c gunicorn.conf.py``
(gunicorn also reads this file by default when started from this directory).

Environment:
  GUNICORN_BIND       address to listen on (default 127.0.0.1:8000; a reverse
                      proxy terminating TLS sits in front)
  WEB_CONCURRENCY     worker processes (default 1). More than one needs
                      MONGODB_URI: the embedded engine is per process, and
                      several workers on it are refused at start.
  GUNICORN_THREADS    threads per worker (default 8; gthread worker)
  GUNICORN_LOG_LEVEL  gunicorn's own log level (default info)
  FORWARDED_ALLOW_IPS proxies trusted for X-Forwarded-Proto (gunicorn's own
                      variable; default 127.0.0.1)
"""

import os

wsgi_app = "shop.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = "gthread"
timeout = 30
graceful_timeout = 30
keepalive = 5
# The shop logs one line per request itself (shop.middleware.RequestLogMiddleware).
accesslog = None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")


def _check_worker_count(workers):
    """Raise RuntimeError (gunicorn prints it and exits 1) for several workers on
    the embedded engine; see ``shop.serving.check_worker_count``."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured

    django.setup()
    from shop.serving import check_worker_count

    try:
        check_worker_count(workers)
    except ImproperlyConfigured as exc:
        raise RuntimeError(str(exc)) from None


def on_starting(server):
    """Before the master starts any worker: refuse several workers on the embedded engine."""
    _check_worker_count(server.cfg.workers)


def nworkers_changed(server, new_value, old_value):
    """A TTIN signal asking for more workers on the embedded engine is refused:
    the count goes back to the old one, with the reason in the log."""
    if old_value is None or new_value <= old_value:
        return
    try:
        _check_worker_count(new_value)
    except RuntimeError as exc:
        server.log.error("%s", exc)
        server.num_workers = old_value
