"""``python manage.py load_catalog``: import the Chinook demo catalog.

Idempotent: categories are found by slug and created only when missing;
products are matched by SKU and written only when new or changed; every
product gets an inventory document with ``--stock`` units unless it has one
(existing stock is never overwritten), so a second run changes nothing. ``--reset`` deletes every category and product
first.
"""

import sqlite3

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalog.transfer import chinook
from catalog.models import Category, OrderCount, Product
from catalog.tree.slugs import slug_for
from inventory.models import Inventory
from core.commandlog import log_change


class Command(BaseCommand):
    help = "Import the Chinook demo catalog (categories from genres, albums as products)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset", action="store_true", help="Delete every category and product first."
        )
        parser.add_argument(
            "--file", default=str(settings.CHINOOK_DATABASE),
            help="The Chinook SQLite file (default: the copy the shop ships).",
        )
        parser.add_argument(
            "--stock", type=int, default=None,
            help="Units in stock for each product that has no inventory document yet "
                 "(default: settings.INVENTORY_DEFAULT_STOCK; existing stock is never changed).",
        )

    def handle(self, *args, **options):
        if options["stock"] is None:
            options["stock"] = settings.INVENTORY_DEFAULT_STOCK
        if options["stock"] < 0:
            raise CommandError("--stock must be 0 or more units.")
        try:
            albums = chinook.read_albums(options["file"])
        except sqlite3.Error as error:
            raise CommandError(f"Cannot read the Chinook database {options['file']}: {error}") from None
        if options["reset"]:
            products = Product.writes.delete_all()
            categories = Category.writes.delete_all()
            log_change(self, f"Reset: deleted {categories} categories and {products} products.")

        category_ids, created = self.ensure_categories()
        log_change(
            self,
            f"Categories: {created} created, {len(category_ids) - created} already there."
        )
        products = [chinook.album_product(album, category_ids) for album in albums]
        report = Product.writes.sync(products)
        Product.listings.keep_savings_counts()  # the deals' counts per saving, kept for the first visit
        log_change(
            self,
            f"Products: {report['created']} created, {report['updated']} updated, "
            f"{report['unchanged']} unchanged."
        )
        if report["created"] or report["updated"]:
            # The pages by price and title: a load bumps the epoch and relists its categories
            # rather than naming each band (writes.bounded_product_scopes), so count them now.
            OrderCount.objects.recount_all()
        # Every SKU sold: a product's own, or each of its variants' (catalog/products/variants.py).
        skus = [sku for p in products for sku in p.sellable_skus]
        created = Inventory.objects.ensure_stock(skus, options["stock"])
        log_change(
            self,
            f"Inventory: {created} created with {options['stock']} units each, "
            f"{len(skus) - created} already there (left as they are)."
        )

    def ensure_categories(self):
        """Create the categories of ``chinook.GENRE_TREE`` that are missing (found by slug).

        Returns ``({category name: ObjectId}, number created)``.
        """
        existing = {c.slug: c for c in Category.objects.tree()}
        ids, created = {}, 0
        for name, parent_name, _genres in chinook.GENRE_TREE:
            slug = slug_for(name)
            category = existing.get(slug)
            if category is None:
                parent = ids[parent_name] if parent_name else None
                category = Category.writes.create_category(name, parent=parent, slug=slug)
                created += 1
            ids[name] = category.pk
        return ids, created
