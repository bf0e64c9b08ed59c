"""``python manage.py cleanup_inventory [--timeout SECONDS]``: the "Inventory Management" use case's "Error Handling".

Reservations older than the timeout are settled: those of active or pending
carts are refreshed, those of complete carts dropped (sold), the others
returned to stock. Safe while shoppers are active and safe to run twice.
One streamed pass (a progress bar of reservations on a terminal; ``--quiet`` for cron).
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from inventory.models import Inventory
from core.commandlog import log_change
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = "Return stock held by reservations of carts that are gone, expired or otherwise inactive."

    def add_arguments(self, parser):
        parser.add_argument(
            "--timeout", type=int, default=settings.INVENTORY_CLEANUP_TIMEOUT,
            help="Only reservations older than this many seconds are looked at "
                 f"(default {settings.INVENTORY_CLEANUP_TIMEOUT}).",
        )
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        if options["timeout"] < 0:
            raise CommandError("--timeout must be 0 or more seconds.")
        with progress_bar(self, options, unit="reservation", desc="Cleaning up") as bar:
            report = Inventory.cleanup.cleanup(options["timeout"], progress=bar.update)
        log_change(
            self,
            f"Returned {report['returned']} reservation(s) to stock; dropped {report['sold']} "
            f"of complete carts (sold); refreshed {report['refreshed']} of live carts.",
            quiet=options["quiet"],
        )
