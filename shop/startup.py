"""Start-up of a shop process on the local server: a usable shop from the first request.

On the default set-up (no ``MONGODB_URI``) the process serving the shop
(runserver, or each gunicorn worker through ``shop.wsgi``) prepares the
database when it starts: it applies the migrations, loads the demo catalog
and the Chinook sales (rolled up for the dashboard) into an empty database,
once, and creates a staff superuser from ``SHOP_ADMIN_USERNAME`` /
``SHOP_ADMIN_PASSWORD`` (in DEBUG without them, ``admin`` / ``admin``,
announced on the console); when that user exists, ``SHOP_ADMIN_PASSWORD``
(when given) becomes its password at every start. With DEBUG off a serving
process then refuses to start while any staff account accepts a common
password (``shop.staffpasswords``, called by ``shop.wsgi`` and gunicorn's
master on every engine). Processes starting at once prepare one after the
other under the local server's lock, so the demo loads once. The demo is
never loaded over data: once any product exists (staff's edits included),
nothing is loaded again. With ``MONGODB_URI`` nothing happens here: run
``migrate`` and ``load_catalog`` once, as the README says.
"""

import logging
import time

from django.conf import settings
from django.core.management import call_command

from core.mongo import LOCAL, engine
from core.mongo.localserver import LocalServer

logger = logging.getLogger(__name__)


#: What a first start loads into an empty local database: (what it is, command, options).
DEMO_STEPS = [
    ("the Chinook catalog", "load_catalog", {}),
    # The home page's hero and collections, the content pages and the footer menu.
    ("the home page, content pages and footer", "load_content", {}),
    # The Chinook invoices as sales, rolled up, so the staff dashboard has figures.
    ("the Chinook sales", "load_sales", {}),
    ("the sales rolled up for the dashboard", "rollup_stats", {"lag": 0}),
]


def prepare_local_database():
    """Migrate, load the demo into an empty database and create the staff user, on the local server only.

    Returns True when it ran (no ``MONGODB_URI``), else False. Raises
    ``LocalServerError`` (its message one line: a read-only or uncreatable data
    directory, a taken port, a server that does not start) when the local server
    cannot be used; ``startup_failure()`` words it for the operator.
    """
    if engine() != LOCAL:
        return False
    # Its own lock, not the server's: migrating starts the server if needed, which
    # takes the server's lock (two locks of one file would deadlock this process).
    server = LocalServer(settings.SHOP_LOCAL_DB_DIR)
    with server.lock("prepare"):
        call_command("migrate", verbosity=0, interactive=False)
        status = server.status()
        logger.info("Local database: the local server at %s, data in %s (manage.py dbserver stop stops it).",
                    status["uri"], status["data_dir"])
        from catalog.models import Product

        if settings.SHOP_LOAD_DEMO_CATALOG and not Product.objects.exists():
            logger.info("Local database is empty: loading the demo in 4 steps.")
            for step, (what, command, options) in enumerate(DEMO_STEPS, 1):
                started = time.monotonic()
                call_command(command, verbosity=0, **options)
                logger.info("Demo %d/4: %s (%.1f s).", step, what, time.monotonic() - started)
        _create_staff_user()
    return True


def _create_staff_user():
    from django.contrib.auth import get_user_model

    password = settings.SHOP_ADMIN_PASSWORD
    username = settings.SHOP_ADMIN_USERNAME or ("admin" if password else "")
    if not (username and password):
        if not settings.DEBUG:
            return
        username, password = "admin", "admin"
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        # The password through set_password, so that its verdict is recorded (shop.staffpasswords).
        user = User.objects.create_superuser(username=username, email="", password=None)
        user.set_password(password)
        user.save(update_fields=["password"])
        logger.warning("Staff user %r created for /admin/.", username)
    elif settings.SHOP_ADMIN_PASSWORD and not user.check_password(password):
        # SHOP_ADMIN_PASSWORD given: it is the password, also of a user made earlier
        # (e.g. admin/admin by a DEBUG start on the same data).
        user.set_password(password)
        user.save(update_fields=["password"])
        logger.warning("Password of staff user %r set from SHOP_ADMIN_PASSWORD.", username)


def startup_failure(exc):
    """The one-line message (str) for a shop that cannot start because of ``exc``
    (a ``LocalServerError`` or a ``WeakStaffPassword``), as gunicorn's master and
    ``shop.wsgi`` report it."""
    return f"The shop cannot start: {str(exc).splitlines()[0]}"


class PaymentsRefused(RuntimeError):
    """A production start without real payments; ``str()`` is the one line naming the setting."""


def payment_setup_problem():
    """Why this process may not take payments as configured (one line naming the setting), or None.

    With ``DJANGO_DEBUG`` off the shop takes real money only: Stripe's provider with
    ``STRIPE_SECRET_KEY`` (a live key), ``STRIPE_PUBLISHABLE_KEY`` and ``STRIPE_WEBHOOK_SECRET``;
    never the local fake Stripe. ``SHOP_PAYMENTS_TEST_MODE=1`` allows test payments on
    purpose (a staging shop). In DEBUG anything goes (the local Stripe by default).
    """
    if settings.DEBUG or settings.SHOP_PAYMENTS_TEST_MODE:
        return None
    provider = settings.PAYMENT_PROVIDER
    if provider != "orders.payments.StripeProvider":
        return (f"PAYMENT_PROVIDER is {provider}, not orders.payments.StripeProvider; production takes real "
                "payments only (SHOP_PAYMENTS_TEST_MODE=1 for a staging shop).")
    if not settings.STRIPE_SECRET_KEY:
        return ("Set STRIPE_SECRET_KEY: without it payments go to the local fake Stripe "
                "(SHOP_PAYMENTS_TEST_MODE=1 for a staging shop).")
    if settings.STRIPE_SECRET_KEY.startswith("sk_test_"):
        return ("STRIPE_SECRET_KEY is a test-mode key (sk_test_): set a live key "
                "(SHOP_PAYMENTS_TEST_MODE=1 for a staging shop).")
    if not settings.STRIPE_PUBLISHABLE_KEY:
        return "Set STRIPE_PUBLISHABLE_KEY: the checkout page's Stripe.js needs it."
    if not settings.STRIPE_WEBHOOK_SECRET:
        return "Set STRIPE_WEBHOOK_SECRET: Stripe's webhook events cannot be verified without it."
    return None


def prepare_payments(site_url=None):
    """Start-up of payments: refuse a production start on fakes (``PaymentsRefused``, one line),
    and with the local Stripe register this shop's webhook endpoint with it
    (``site_url`` + ``/stripe/webhook/``, default ``SHOP_SITE_URL``). A local Stripe that cannot
    be reached is logged, not fatal: checkout starts it when it needs it."""
    problem = payment_setup_problem()
    if problem:
        raise PaymentsRefused(problem)
    if settings.STRIPE_SECRET_KEY:
        return
    import hashlib

    from orders.stripelocal import LocalStripe, LocalStripeError

    url = (site_url or settings.SHOP_SITE_URL).rstrip("/") + "/stripe/webhook/"
    try:
        # One endpoint per address (a shop restarted on it replaces its own registration).
        local = LocalStripe()
        local.register_webhook(f"shop-{hashlib.sha1(url.encode(), usedforsecurity=False).hexdigest()[:12]}", url,
                               local.webhook_secret())
        logger.info("Local Stripe: localstripe at %s, state in %s, events sent to %s.", local.url(),
                    local.state_dir, url)
    except (LocalStripeError, OSError) as exc:
        logger.warning("The local Stripe's webhook was not registered (%s); checkout starts it when needed.", exc)
