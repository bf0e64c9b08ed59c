"""``python manage.py restock SKU QTY``: put QTY more units of a catalog product on the shelf."""

from django.core.management.base import BaseCommand, CommandError

from inventory import products
from inventory.exceptions import StockError
from inventory.models import Inventory
from core.commandlog import log_change


class Command(BaseCommand):
    help = "Add QTY units of SKU to the available stock."

    def add_arguments(self, parser):
        parser.add_argument("sku", help="The SKU sold: a product's, e.g. CHK-0001, or a variant's.")
        parser.add_argument("qty", help="Units to add (a whole number, 1 or more).")

    def handle(self, *args, sku, qty, **options):
        try:
            qty = int(qty)
        except ValueError:
            raise CommandError(f"QTY must be a whole number, not {qty!r}.") from None
        try:
            product = products.by_sku(sku)
        except products.UnknownSku:
            raise CommandError(f"No product with SKU {sku!r}.") from None
        if sku not in product.sellable_skus:
            raise CommandError(f"{sku} has variants and sells only theirs: "
                               f"restock one of {', '.join(product.sellable_skus)}.")
        try:
            available = Inventory.objects.restock(sku, qty)
        except StockError as error:
            raise CommandError(str(error)) from None
        log_change(self, f"{sku}: +{qty}, {available} available.")
