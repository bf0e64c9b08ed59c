"""Serving rules for gunicorn (called from ``gunicorn.conf.py``).

The embedded engine keeps the whole shop inside one process: several
gunicorn workers on it would each run a shop of their own (their own stock,
carts and users), silently. So several workers are refused unless a MongoDB
server (``MONGODB_URI``) is configured.
"""

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
