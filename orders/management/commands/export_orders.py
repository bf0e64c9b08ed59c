"""``python manage.py export_orders [--since DATE] [--until DATE] [--output FILE]``: orders to CSV.

For the accountants: the orders placed from ``--since`` (included) to
``--until`` (excluded), dates or ISO 8601 times in UTC; columns in
``orders/exports.py``. Writes to stdout unless ``--output``. Exits with a
one-line reason for a date it cannot read.
"""

import datetime

from django.core.management.base import BaseCommand, CommandError

from catalog.transfer.exports import output
from orders.exports import write_orders


def _moment(text, option):
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{option} takes a date (YYYY-MM-DD) or an ISO 8601 time, not {text!r}.") from None
    return moment.replace(tzinfo=datetime.UTC) if moment.tzinfo is None else moment


class Command(BaseCommand):
    help = "Export the orders placed in a period to CSV (amounts in dollars, dates in UTC)."

    def add_arguments(self, parser):
        parser.add_argument("--since", help="First day (UTC, included), e.g. 2026-01-01.")
        parser.add_argument("--until", help="Day after the last (UTC, excluded), e.g. 2026-02-01.")
        parser.add_argument("--output", "-o", help="The file to write (default: stdout).")

    def handle(self, *args, **options):
        since = _moment(options["since"], "--since") if options["since"] else None
        until = _moment(options["until"], "--until") if options["until"] else None
        if since and until and until <= since:
            raise CommandError("--until must come after --since.")
        with output(options["output"], self.stdout) as out:
            count = write_orders(out, since, until)
        if options["output"]:
            self.stdout.write(f"{count} orders written to {options['output']}.")
