"""``python manage.py populatedb --products N``: fill an empty catalog with a generated one.

``populatedb --age [--aged-carts N] [--aged-orders N] [--aged-skus N]`` (with or
without ``--products``) also writes a year of trade in bulk, in the shop's
own schema, for the soak benchmark (``orders/aging.py``, ``bench/soak.py``):
by default 300,000 carts, 100,000 orders with their payment attempts and
100,000 SKUs' inventory documents. It refuses a database with carts or orders.

As Saleor's ``populatedb``: a realistic catalog for trying the shop at
scale and for the benchmarks (``bench/catalog_pages.py``). The tree has the
README's shape (10 top categories, 90 below them, the rest leaves: 5,000 by
default), the products are albums with tracks, artists, genres, issue dates
and prices, and each gets stock (``catalog/transfer/generate.py``). Everything goes
through the managers, with a progress bar on stderr.

Refuses (exit 1, one line) a catalog that already has categories or products,
unless ``--reset`` (which deletes every category and product first, as
``load_catalog --reset`` does), and bad numbers.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog.transfer.generate import populate
from catalog.models import Category, Product
from orders.aging import age
from core.commandlog import log_change

MAX_PRODUCTS = 2_000_000


class Command(BaseCommand):
    help = "Fill an empty catalog with a generated one (categories, albums with tracks, stock)."

    def add_arguments(self, parser):
        parser.add_argument("--products", type=int,
                            help=f"How many products to generate (0 to {MAX_PRODUCTS:,}).")
        parser.add_argument("--age", action="store_true",
                            help="Also write a year of trade in bulk: carts, orders, payments, SKUs (orders/aging.py).")
        parser.add_argument("--aged-carts", type=int, default=300_000, help="With --age: carts (default 300,000).")
        parser.add_argument("--aged-orders", type=int, default=100_000,
                            help="With --age: orders, each with its payment and cart (default 100,000).")
        parser.add_argument("--aged-skus", type=int, default=100_000,
                            help="With --age: SKUs with inventory documents (default 100,000).")
        parser.add_argument("--categories", type=int, default=5000,
                            help="How many categories (at least 101; default 5,000).")
        parser.add_argument("--stock", type=int, default=20, help="Units of each product (default 20).")
        parser.add_argument("--seed", type=int, default=7, help="The same seed makes the same catalog.")
        parser.add_argument("--reset", action="store_true",
                            help="Delete every category and product first.")

    def handle(self, *args, **options):
        if options["products"] is None and not options["age"]:
            raise CommandError("Say what to generate: --products N, --age, or both.")
        if options["age"]:
            self.age(options)
        if options["products"] is not None:
            self.populate(options)

    def age(self, options):
        counts = options["aged_carts"], options["aged_orders"], options["aged_skus"]
        if min(counts) < 0:
            raise CommandError("--aged-carts, --aged-orders and --aged-skus cannot be negative.")
        with tqdm(total=counts[0] + 2 * counts[1] + counts[2], unit="document",
                  disable=options["verbosity"] == 0) as bar:
            try:
                made = age(*counts, seed=options["seed"], progress=bar.update)
            except ValueError as error:
                raise CommandError(str(error)) from None
        log_change(self, f"Aged the database: {made['carts']} carts, {made['orders']} orders with their "
                         f"payments, {made['skus']} SKUs.")

    def populate(self, options):
        products, categories = options["products"], options["categories"]
        if not 0 <= products <= MAX_PRODUCTS:
            raise CommandError(f"--products must be between 0 and {MAX_PRODUCTS:,}.")
        if categories < 101:
            raise CommandError("--categories must be at least 101 (10 top, 90 middle, 1 leaf).")
        if options["stock"] < 0:
            raise CommandError("--stock cannot be negative.")
        if options["reset"]:
            removed = (Product.writes.delete_all(), Category.writes.delete_all())
            log_change(self, f"Deleted {removed[0]} products and {removed[1]} categories.")
        elif Category.objects.exists() or Product.objects.exists():
            raise CommandError("The catalog is not empty: use --reset to replace it.")
        with tqdm(total=products, unit="product", disable=options["verbosity"] == 0) as bar:
            made = populate(products, categories=categories, stock=options["stock"],
                            seed=options["seed"], progress=bar.update)
        log_change(self, f"Generated {made[0]} categories and {made[1]} products "
                         f"with {options['stock']} units each.")
