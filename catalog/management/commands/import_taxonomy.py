"""``python manage.py import_taxonomy FILE``: import a category tree from a
Google product taxonomy file (``ID - Top > Middle > Leaf`` lines).

The whole file is checked first: a malformed line stops the command with its
line number, and nothing is imported. A re-import of the same file changes
nothing; a newer file renames and moves the categories whose names or
parents changed (matched by the file's IDs, kept in ``taxonomy_id``) and
creates the new ones. See ``catalog.tree.taxonomy``.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.exceptions import CatalogError, TaxonomyError
from catalog.tree.taxonomy import TaxonomyImport, parse_taxonomy
from core.commandlog import log_change


class Command(BaseCommand):
    help = "Import categories from a Google product taxonomy file (ID - Top > ... > Leaf)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="The taxonomy file (UTF-8 text).")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            with open(path, encoding="utf-8-sig") as handle:
                entries = parse_taxonomy(handle)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
        except UnicodeDecodeError:
            raise CommandError(f"{path} is not UTF-8 text.") from None
        except TaxonomyError as error:
            raise CommandError(f"{path}, {error} (nothing imported).") from None
        plan = TaxonomyImport(entries)
        with tqdm(total=plan.total, unit="category", desc="Importing", file=self.stderr,
                  disable=options["verbosity"] == 0) as bar:
            try:
                report = plan.run(progress=bar.update)
            except CatalogError as error:
                raise CommandError(f"Import stopped: {error}") from None
        log_change(
            self,
            f"Categories: {report['created']} created, {report['renamed']} renamed, "
            f"{report['moved']} moved, {report['unchanged']} unchanged"
            + (f"; {report['left_alone']} no longer in the file left alone." if report["left_alone"]
               else ".")
        )
