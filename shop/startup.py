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

from django.conf import settings
from django.core.management import call_command

from core.mongo import LOCAL, engine
from core.mongo.localserver import LocalServer

logger = logging.getLogger(__name__)


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
    with LocalServer(settings.SHOP_LOCAL_DB_DIR).lock("prepare"):
        call_command("migrate", verbosity=0, interactive=False)
        from catalog.models import Product

        if settings.SHOP_LOAD_DEMO_CATALOG and not Product.objects.exists():
            logger.info("Local database is empty: loading the demo catalog and the Chinook sales.")
            call_command("load_catalog", verbosity=0)
            # The Chinook invoices as sales, rolled up, so the staff dashboard has figures.
            call_command("load_sales", verbosity=0)
            call_command("rollup_stats", lag=0, verbosity=0)
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
