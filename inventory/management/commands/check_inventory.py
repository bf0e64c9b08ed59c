"""``python manage.py check_inventory``: verify the stock invariant for every SKU.

``qty + sum(carted.qty) + sold == stocked``, ``qty >= 0``, every reservation
positive and at most one per cart (``docs/collections.md``, "inventory").
Exits non-zero listing the offending SKUs.
"""

from django.core.management.base import BaseCommand, CommandError

from inventory.models import Inventory


class Command(BaseCommand):
    help = "Check qty + reserved + sold == stocked for every SKU; fail listing the SKUs where not."

    def handle(self, *args, **options):
        problems = Inventory.objects.check_invariant()
        if problems:
            for sku, reason in problems:
                self.stderr.write(f"{sku}: {reason}")
            raise CommandError(
                f"Inventory invariant broken for {len(problems)} SKU(s): "
                + ", ".join(sku for sku, _ in problems)
            )
        self.stdout.write("Inventory invariant holds for every SKU.")
