"""``python manage.py check_inventory [--quiet]``: verify the stock invariant for every SKU.

``qty + sum(carted.qty) + sold == stocked``, ``qty >= 0``, every reservation
positive and at most one per cart (``docs/collections.md``, "inventory").
Exits non-zero listing the offending SKUs. The command lives in the orders
app because ``sold`` comes from the orders (``Order.objects.sold_by_sku``):
the check itself is ``inventory.invariant``, which does not import the orders.

It also reports money taken with no order (``orders.audit``): payment
attempts left unfinished past ``PAYMENT_RECOVERY_AFTER`` (``reconcile_payments``
has not settled them), and every PaymentIntent of this shop at Stripe that
succeeded without paying an order or being refunded in full; and the claims of
discount codes and gift-card holds that belong to no paid order and no checkout
under way (``orders.claims.audit``).

One streamed pass over the stock (a progress bar of SKUs on a terminal;
``--quiet`` for cron: only a failure is written).
"""

from django.core.management.base import BaseCommand, CommandError

from inventory.invariant import check_invariant
from orders.audit import charges_without_order
from orders.claims import audit as claims_audit
from orders.models import Order
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = "Check qty + reserved + sold == stocked for every SKU; fail listing the SKUs where not."

    def add_arguments(self, parser):
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        with progress_bar(self, options, unit="SKU", desc="Checking") as bar:
            problems = check_invariant(Order.objects.sold_by_sku, progress=bar.update)
        unmatched = charges_without_order()
        leaked = claims_audit()
        for sku, reason in problems:
            self.stderr.write(f"{sku}: {reason}")
        for line in unmatched + leaked:
            self.stderr.write(line)
        if problems or unmatched or leaked:
            reasons = []
            if problems:
                reasons.append(f"Inventory invariant broken for {len(problems)} SKU(s): "
                               + ", ".join(sku for sku, _ in problems))
            if unmatched:
                reasons.append(f"{len(unmatched)} charge(s) without an order (run reconcile_payments)")
            if leaked:
                reasons.append(f"{len(leaked)} claim(s) of codes or gift cards without a paid order (run reconcile_payments)")
            raise CommandError("; ".join(reasons) + ".")
        if not options["quiet"]:
            self.stdout.write("Inventory invariant holds for every SKU; every charge has its order or its refund; "
                              "every claim of a code or a gift card its paid order.")
