"""``python manage.py export_products --category PATH | --type NAME [--output FILE]``: products to CSV.

The columns are those ``import_products`` reads, so the file imports again
unchanged (``catalog/transfer/exports.py``). Writes to stdout unless ``--output``.
Exits with a one-line reason for an unknown category or type.
"""


from django.core.management.base import BaseCommand, CommandError

from catalog.transfer.exports import output, write_products
from catalog.models import Category
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = "Export the products of a category (and below) or of a product type to CSV, in import_products' columns."

    def add_arguments(self, parser):
        parser.add_argument("--category", help='The category\'s path, e.g. "Music > Rock" (its subtree is included).')
        parser.add_argument("--type", dest="type_name", help='The product type\'s name, e.g. "Audio Album".')
        parser.add_argument("--output", "-o", help="The file to write (default: stdout).")
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        if not options["category"] and not options["type_name"]:
            raise CommandError("Give --category PATH or --type NAME (or both).")
        category = None
        if options["category"]:
            wanted = " > ".join(p.strip().casefold() for p in options["category"].split(">"))
            ids = {path.casefold(): i for path, i in Category.objects.ids_by_path().items()}
            if wanted not in ids:
                raise CommandError(f"No category {options['category']!r}.")
            category = Category.objects.get(pk=ids[wanted])
        try:
            with output(options["output"], self.stdout) as out, \
                    progress_bar(self, options, unit="products", desc="export") as bar:
                rows = write_products(out, category, options["type_name"], progress=bar.update)
        except LookupError as error:
            raise CommandError(f"Cannot export: {error}.") from None
        if options["output"] and not options["quiet"]:
            self.stdout.write(f"{rows} rows written to {options['output']}.")
