"""``python manage.py recount_listings``: count every category's products again and keep the counts.

Rebuilds what the category pages read instead of counting their products: the
kept counts of ``listing_counts`` (how many products each category lists,
``ListingCount.objects.recount_all``) and of ``order_counts`` (each category's
products along its sorts by price and by title, ``OrderCount.objects.recount_all``):
one pass over every product each. The shop keeps both itself as products are written;
run it after a restore of ``products`` without them, or after writing products by
hand. Safe while the shop runs (a page reads a count only while it is current,
and counts itself meanwhile); idempotent.
"""

from django.core.management.base import BaseCommand

from catalog.models import ListingCount, OrderCount
from core.commandlog import log_change


class Command(BaseCommand):
    help = "Count every category's products again (listing_counts, order_counts) and keep the counts."

    def handle(self, *args, **options):
        listed = ListingCount.objects.recount_all()
        log_change(self, f"Listing counts: {len(listed)} categories counted.")
        kept = OrderCount.objects.recount_all()
        log_change(self, f"Order counts: {kept} kept (by price and by title).")
