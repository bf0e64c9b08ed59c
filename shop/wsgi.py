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

from django.core.exceptions import ImproperlyConfigured  # noqa: E402

from core.mongo.localserver import LocalServerError  # noqa: E402
from shop.staffpasswords import WeakStaffPassword, check_staff_passwords  # noqa: E402
from shop.startup import PaymentsRefused, prepare_local_database, prepare_payments, startup_failure  # noqa: E402

# gunicorn's master prepares the database before forking (gunicorn.conf.py's
# on_starting); runserver and other servers prepare it here.
if not os.environ.get("SHOP_DATABASE_PREPARED"):
    try:
        prepare_payments()
    except PaymentsRefused as exc:
        raise ImproperlyConfigured(f"The shop cannot start: {exc}") from None
    try:
        prepare_local_database()
    except LocalServerError as exc:
        raise ImproperlyConfigured(startup_failure(exc)) from None

# With DEBUG off: no staff account with a common password (admin/admin), on every engine.
try:
    check_staff_passwords()
except WeakStaffPassword as exc:
    raise ImproperlyConfigured(startup_failure(exc)) from None

# Interrupted checkouts are settled by every serving process by itself
# (orders.reconcile; concurrent runs are safe), as cron would with
# `manage.py reconcile_payments`.
from django.conf import settings  # noqa: E402

from orders.reconcile import start_background  # noqa: E402

start_background(settings.PAYMENT_RECONCILE_INTERVAL)
