"""WSGI entry point of the shop (runserver and gunicorn).

On the embedded engine the process prepares its own store at start
(``shop.startup``): the shop is usable from the first request. Several
workers asked through ``WEB_CONCURRENCY`` are refused there
(``shop.serving``): each would be a shop of its own.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
application = get_wsgi_application()

from shop.serving import check_worker_count, workers_from_environment  # noqa: E402
from shop.startup import prepare_embedded_store  # noqa: E402  (needs Django set up)

check_worker_count(workers_from_environment())
prepare_embedded_store()
