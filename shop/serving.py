"""Serving rules: how many processes may serve the shop.

The embedded engine keeps the whole shop inside one process: several
gunicorn workers on it would each run a shop of their own (their own stock,
carts and users), silently. So several workers are refused unless a MongoDB
server (``MONGODB_URI``) is configured: by ``gunicorn.conf.py`` before any
worker starts (``--workers``, ``WEB_CONCURRENCY``), and by ``shop.wsgi`` at
start for a server run without that file that takes its worker count from
``WEB_CONCURRENCY`` (gunicorn's default, set by hosting platforms).
"""

import os

from django.core.exceptions import ImproperlyConfigured

from shop.mongo import is_embedded

SEVERAL_WORKERS_REFUSED = (
    "The embedded engine is per process: {workers} gunicorn workers would be "
    "{workers} separate shops. Run one worker with threads (gunicorn -c "
    "gunicorn.conf.py, WEB_CONCURRENCY=1, GUNICORN_THREADS=8) or set MONGODB_URI "
    "to a MongoDB server for several workers."
)


def check_worker_count(workers):
    """Refuse ``workers`` (int) > 1 on the embedded engine.

    Raises ImproperlyConfigured with the message above; returns None when
    the count is fine (one worker, or a MongoDB server behind the shop).
    Needs Django's settings (``django.setup()``): the engine comes from
    ``shop.mongo.is_embedded()``.
    """
    if workers > 1 and is_embedded():
        raise ImproperlyConfigured(SEVERAL_WORKERS_REFUSED.format(workers=workers))


def workers_from_environment(environ=os.environ):
    """The worker count ``WEB_CONCURRENCY`` asks for (int, 1 when unset).

    Raises ImproperlyConfigured when it is not a whole number of at least 1.
    """
    value = environ.get("WEB_CONCURRENCY", "").strip() or "1"
    if not value.isdigit() or int(value) < 1:
        raise ImproperlyConfigured(f"WEB_CONCURRENCY must be a whole number of at least 1, not {value!r}.")
    return int(value)
