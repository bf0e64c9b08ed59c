from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save, pre_delete


class CatalogConfig(AppConfig):
    """Categories (the "Category Hierarchy" ancestor tree), products and the storefront pages."""

    name = "catalog"
    #: Its indexes and sharding plan (``core.mongo.indexes.indexes_module``).
    indexes_module = "store.indexes"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        """Connect the ORM's saves and deletes of categories and deletes of products to the
        catalog's write owner (``catalog/receivers.py``), once each however often ``ready``
        runs (a product's save does its own, ``Product.save``); hand the inventory its reader of
        products by SKU (``inventory/products.py``)."""
        from catalog.models import Category, Product
        from catalog.products.variants import variant_url
        from catalog.receivers import category_changed, product_deleted, product_deleting
        from inventory import products

        # The inventory reads a product through the reader the catalog hands it
        # (inventory/products.py): it imports no catalog module.
        products.register(
            by_sku=Product.objects.get_by_sku, missing=Product.DoesNotExist,
            page_url=lambda product, sku: variant_url(product, sku) if product.variants
            else product.get_absolute_url(),
            line_covers=Product.objects.line_covers)

        for signal in (post_save, post_delete):
            signal.connect(category_changed, sender=Category,
                           dispatch_uid=f"catalog_version_{signal is post_save}_Category")
        pre_delete.connect(product_deleting, sender=Product, dispatch_uid="listing_counts_pre_delete")
        post_delete.connect(product_deleted, sender=Product, dispatch_uid="listing_counts_post_delete")
