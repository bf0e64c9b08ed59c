"""``python manage.py expire_carts [--timeout SECONDS] [--max-age SECONDS] [--quiet]``: the "Inventory Management" use case's cart expiry.

Active carts unchanged for longer than the timeout, and active carts started
longer than the maximum age ago however recently touched, become expired and their
reservations go back on the shelf, one write per SKU touched
(``Cart.expiry.expire``); a pending cart, whose payment may be taken, is
settled by ``reconcile_payments`` instead. Safe while shoppers are active and
safe to run twice (every return is a conditional write); a run killed
halfway is finished by the next one. A progress bar (carts) on a terminal;
``--quiet`` for cron.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from inventory.models import Cart
from core.commandlog import log_change
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = ("Expire carts idle for longer than --timeout seconds or started longer than --max-age seconds "
            "ago, and return their stock.")

    def add_arguments(self, parser):
        parser.add_argument(
            "--timeout", type=int, default=settings.CART_TIMEOUT,
            help=f"Seconds without change before a cart expires (default {settings.CART_TIMEOUT}).",
        )
        parser.add_argument(
            "--max-age", type=int, default=settings.CART_MAX_AGE,
            help=f"Seconds from a cart's creation after which it expires however recently touched "
                 f"(default {settings.CART_MAX_AGE}).",
        )
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        if options["timeout"] < 0:
            raise CommandError("--timeout must be 0 or more seconds.")
        if options["max_age"] < 0:
            raise CommandError("--max-age must be 0 or more seconds.")
        with progress_bar(self, options, unit="cart", desc="Expiring") as bar:
            report = Cart.expiry.expire(options["timeout"], progress=bar.update,
                                         max_age=options["max_age"])
        log_change(
            self,
            f"Expired {report['expired']} cart(s); returned {report['returned']} reservation(s) to stock.",
            quiet=options["quiet"],
        )
