"""``python manage.py purge_carts [--retention SECONDS] [--quiet]``: finished carts leave ``carts``.

Carts ``complete``, ``expired`` or ``merged`` and unchanged for longer than
the retention period (``settings.CART_RETENTION``, default 30 days) are
deleted (``Cart.retention.purge``): an order keeps its own copy of the lines,
prices and totals, and an expired cart's units are back on the shelf. Kept:
a cart still holding a reservation (``cleanup_inventory`` settles it first)
and the cart of a payment not yet settled (``reconcile_payments`` reads it).
The same run clears the expired Django sessions (what ``clearsessions``
does, through the session engine's ``clear_expired``), so that carts and
sessions leave on one schedule. Safe while shoppers are active and safe to
run twice. Run it daily from cron, like ``expire_carts``. It lives in ``orders``
because it reads the payment ledger as well as the carts (``inventory`` imports
nothing of ``orders``).
"""

import datetime
from importlib import import_module

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core import clock
from core.commandlog import log_change
from core.progress import add_quiet_argument, progress_bar
from inventory.models import Cart
from orders.models import PaymentAttempt


class Command(BaseCommand):
    help = "Delete finished carts (complete, expired, merged) older than --retention seconds; clear expired sessions."

    def add_arguments(self, parser):
        parser.add_argument(
            "--retention", type=int, default=settings.CART_RETENTION,
            help=f"Seconds a finished cart is kept (default {settings.CART_RETENTION}).",
        )
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        if options["retention"] < 0:
            raise CommandError("--retention must be 0 or more seconds.")
        now = clock.now()
        threshold = now - datetime.timedelta(seconds=options["retention"])
        unsettled = {attempt["cart_id"] for attempt in PaymentAttempt.objects.unfinished(now)}
        with progress_bar(self, options, unit="cart", desc="Purging") as bar:
            report = Cart.retention.purge(threshold, keep=unsettled, progress=bar.update)
        import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
        log_change(
            self,
            f"Deleted {report['deleted']} finished cart(s) older than {options['retention']} s; "
            f"kept {report['held']} still holding reservations; expired sessions cleared.",
            quiet=options["quiet"],
        )
