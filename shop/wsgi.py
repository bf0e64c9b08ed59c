"""WSGI entry point of the shop (runserver and gunicorn).

On the local server (no ``MONGODB_URI``) the process prepares the database
at start (``shop.startup``): the shop is usable from the first request, and
every process (each gunicorn worker, the operators' commands) shares the one
local server.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
application = get_wsgi_application()

from shop.startup import prepare_local_database  # noqa: E402  (needs Django set up)

prepare_local_database()
