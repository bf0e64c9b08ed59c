"""``manage.py make_gift_card_product [--sku GIFT-CARD] [--title "Gift card"] [--amounts 25 50 100]
[--stock 1000000] [--category SLUG]``: the gift-card product a shop sells (orders/gift_cards_sold.py).

Makes the product type ``SHOP_GIFT_CARD_TYPE`` when missing (one variant attribute,
``amount``; tax class zero: a gift card is money, taxed when it is spent) and a product of it
whose variants are the amounts (SKU ``<sku>-<dollars>``, price the amount, no shipping weight),
each stocked with ``--stock`` units (a stock that does not run out). Refuses a SKU that exists;
exits non-zero with a one-line reason.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from catalog.models import Attribute, Category, Pricing, Product, ProductType, Variant
from inventory.models import Inventory


class Command(BaseCommand):
    help = "Make the gift-card product: a digital product whose variants are the amounts on sale."

    def add_arguments(self, parser):
        parser.add_argument("--sku", default="GIFT-CARD")
        parser.add_argument("--title", default="Gift card")
        parser.add_argument("--amounts", nargs="+", type=int, default=[25, 50, 100], help="whole dollars")
        parser.add_argument("--stock", type=int, default=1_000_000)
        parser.add_argument("--category", default="", help="a category slug to list it in")

    def handle(self, *args, sku, title, amounts, stock, category, **options):
        if not amounts or any(a < 1 or a > 10_000 for a in amounts) or len(set(amounts)) != len(amounts):
            raise CommandError("--amounts takes distinct whole dollars from 1 to 10000.")
        if stock < 1:
            raise CommandError("--stock must be at least 1.")
        if Product.objects.filter(sku=sku).exists():
            raise CommandError(f"A product with SKU {sku} exists already.")
        categories = []
        if category:
            found = Category.objects.filter(slug=category).first()
            if found is None:
                raise CommandError(f"No category with slug {category!r}.")
            categories = [found.pk]
        name = settings.SHOP_GIFT_CARD_TYPE
        if not ProductType.objects.filter(name=name).exists():
            ProductType(name=name, slug="gift-card", tax_class="zero",
                        attributes=[Attribute(code="amount", label="Amount", kind="text", variant=True)]).save()
        amounts = sorted(amounts)
        product = Product(sku=sku, type=name, title=title, categories=categories, tax_class="zero", details={},
                          description="A gift card: its code is e-mailed once the order is paid.",
                          pricing=Pricing.from_prices(amounts[0] * 100, amounts[0] * 100),
                          variants=[Variant(sku=f"{sku}-{a}", options={"amount": f"${a}"},
                                            pricing=Pricing.from_prices(a * 100, a * 100)) for a in amounts])
        try:
            product.save()
        except ValidationError as error:
            raise CommandError(f"The gift-card product was refused: {'; '.join(error.messages)}") from None
        Inventory.objects.ensure_stock(product.sellable_skus, stock)
        self.stdout.write(f"Made {sku} ({name}): {', '.join(f'${a}' for a in amounts)}, {stock} of each in stock.")
