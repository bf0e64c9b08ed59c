"""``python manage.py import_products FILE``: products, variants, prices and stock from CSV or JSON Lines.

The columns, the checks and the feeds are in docs/commands.md; the work is
``catalog.transfer.imports.import_file``'s. Exits with a one-line reason (status 1)
for a file that cannot be read and when rows are refused (nothing is then
written, unless ``--good-rows-only``); each refused row is listed on stderr
with its line, column and reason.
"""

from django.core.management.base import BaseCommand, CommandError

from catalog.transfer.imports import FEED_FIELDS, FileError, import_file
from core.commandlog import log_change
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = "Import products and variants (or, with --only, prices and stock) from a CSV or JSON Lines file."

    def add_arguments(self, parser):
        parser.add_argument("file", help="The file: .csv, or .jsonl (JSON Lines).")
        parser.add_argument("--format", choices=["csv", "jsonl"], default=None,
                            help="The file's format (default: from its name).")
        parser.add_argument("--dry-run", action="store_true",
                            help="Check the file and say what would be created, changed and refused; write nothing.")
        parser.add_argument("--good-rows-only", action="store_true",
                            help="Import the good rows of a file that has bad ones (default: such a file changes nothing).")
        parser.add_argument("--only", default=None,
                            help="A feed: update only these fields of existing SKUs, e.g. price,stock "
                                 f"(any of {', '.join(FEED_FIELDS)}).")
        parser.add_argument("--media-dir", default=None,
                            help="The folder the paths of the images column start from.")
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        only = None
        if options["only"] is not None:
            only = {f.strip() for f in options["only"].split(",") if f.strip()}
            unknown = only - set(FEED_FIELDS)
            if not only or unknown:
                raise CommandError(f"--only takes {', '.join(FEED_FIELDS)} (not {', '.join(sorted(unknown)) or 'nothing'}).")
        try:
            with progress_bar(self, options, unit="rows", desc="import") as bar:
                report = import_file(options["file"], options["format"], only=only, dry_run=options["dry_run"],
                                     good_rows_only=options["good_rows_only"], media_dir=options["media_dir"],
                                     progress=bar.update)
        except FileError as error:
            raise CommandError(f"Cannot import {options['file']}: {error}.") from None
        for line in report.error_lines():
            self.stderr.write(line)
        if report.refused > len(report.errors):
            self.stderr.write(f"... and {report.refused - len(report.errors)} more refused rows.")
        log_change(self, report.summary(), quiet=options["quiet"])
        if report.refused and not options["good_rows_only"] and not options["dry_run"]:
            first = report.error_lines()[0]
            raise CommandError(f"{report.refused} bad rows ({first}); nothing was imported.")
