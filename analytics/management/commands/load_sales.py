"""``python manage.py load_sales``: import the Chinook invoice lines as historical sale events.

Idempotent: each line is written once (its ref is ``chinook:line:<id>``); a
second run writes nothing. Run ``rollup_stats`` afterwards to see them in
the dashboard.
"""

import sqlite3

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from analytics.chinook_sales import REF_PREFIX, read_sales
from analytics.models import Event
from core.commandlog import log_change


class Command(BaseCommand):
    help = "Import the Chinook invoice lines as sale events (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--file", default=str(settings.CHINOOK_DATABASE),
            help="The Chinook SQLite file (default: the copy the shop ships).",
        )

    def handle(self, *args, **options):
        try:
            sales = read_sales(options["file"])
        except sqlite3.Error as error:
            raise CommandError(f"Cannot read the Chinook database {options['file']}: {error}") from None
        written, existing = Event.objects.import_sales(sales, REF_PREFIX)
        if options["verbosity"]:
            log_change(self, f"Sales: {written} imported, {existing} already there.")
