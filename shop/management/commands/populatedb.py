"""``python manage.py populatedb --products N``: fill an empty catalog with a generated one.

As Saleor's ``populatedb``: a realistic catalog for trying the shop at
scale and for the benchmarks (``bench/catalog_pages.py``). The tree has the
README's shape (10 top categories, 90 below them, the rest leaves: 5,000 by
default), the products are albums with tracks, artists, genres, issue dates
and prices, and each gets stock (``catalog/generate.py``). Everything goes
through the managers, with a progress bar on stderr.

Refuses (exit 1, one line) a catalog that already has categories or products,
unless ``--reset`` (which deletes every category and product first, as
``load_catalog --reset`` does), and bad numbers. Other generators (carts,
events) can be added here as options of their own.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.generate import populate
from catalog.models import Category, Product
from core.commandlog import log_change

MAX_PRODUCTS = 2_000_000


class Command(BaseCommand):
    help = "Fill an empty catalog with a generated one (categories, albums with tracks, stock)."

    def add_arguments(self, parser):
        parser.add_argument("--products", type=int, required=True,
                            help=f"How many products to generate (0 to {MAX_PRODUCTS:,}).")
        parser.add_argument("--categories", type=int, default=5000,
                            help="How many categories (at least 101; default 5,000).")
        parser.add_argument("--stock", type=int, default=20, help="Units of each product (default 20).")
        parser.add_argument("--seed", type=int, default=7, help="The same seed makes the same catalog.")
        parser.add_argument("--reset", action="store_true",
                            help="Delete every category and product first.")

    def handle(self, *args, **options):
        products, categories = options["products"], options["categories"]
        if not 0 <= products <= MAX_PRODUCTS:
            raise CommandError(f"--products must be between 0 and {MAX_PRODUCTS:,}.")
        if categories < 101:
            raise CommandError("--categories must be at least 101 (10 top, 90 middle, 1 leaf).")
        if options["stock"] < 0:
            raise CommandError("--stock cannot be negative.")
        if options["reset"]:
            removed = (Product.objects.delete_all(), Category.objects.delete_all())
            log_change(self, f"Deleted {removed[0]} products and {removed[1]} categories.")
        elif Category.objects.exists() or Product.objects.exists():
            raise CommandError("The catalog is not empty: use --reset to replace it.")
        with tqdm(total=products, unit="product", disable=options["verbosity"] == 0) as bar:
            made = populate(products, categories=categories, stock=options["stock"],
                            seed=options["seed"], progress=bar.update)
        log_change(self, f"Generated {made[0]} categories and {made[1]} products "
                         f"with {options['stock']} units each.")
