"""Start-up of a shop process on the embedded engine.

The embedded engine keeps nothing across restarts, so a process serving the
shop on it (runserver, or gunicorn through ``shop.wsgi``) prepares its store
when it starts: it applies the migrations, loads the demo catalog (and the
Chinook sales, rolled up for the dashboard) when the store holds no product, and creates a staff superuser from
``SHOP_ADMIN_USERNAME`` / ``SHOP_ADMIN_PASSWORD`` (in DEBUG without them,
``admin`` / ``admin``, announced on the console). On a real server nothing
happens here: run ``migrate`` and ``load_catalog`` once, as the README says.
"""

import logging

from django.conf import settings
from django.core.management import call_command

from shop.mongo import is_embedded

logger = logging.getLogger(__name__)


def prepare_embedded_store():
    """Migrate, load the demo catalog and create the staff user, on the embedded engine only.

    Returns True when it did something (the engine is embedded), else False.
    """
    if not is_embedded():
        return False
    call_command("migrate", verbosity=0, interactive=False)
    from catalog.models import Product

    if settings.SHOP_LOAD_DEMO_CATALOG and not Product.objects.exists():
        logger.info("Embedded engine: loading the demo catalog.")
        call_command("load_catalog", verbosity=0)
        # The Chinook invoices as sales, rolled up, so the staff dashboard has figures.
        call_command("load_sales", verbosity=0)
        call_command("rollup_stats", lag=0, verbosity=0)
    _create_staff_user()
    return True


def _create_staff_user():
    from django.contrib.auth import get_user_model

    username, password = settings.SHOP_ADMIN_USERNAME, settings.SHOP_ADMIN_PASSWORD
    if not (username and password):
        if not settings.DEBUG:
            return
        username, password = "admin", "admin"
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        return
    User.objects.create_superuser(username=username, email="", password=password)
    logger.warning("Embedded engine: staff user %r created for /admin/.", username)
