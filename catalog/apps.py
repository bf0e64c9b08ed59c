from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save, pre_delete


class CatalogConfig(AppConfig):
    """Categories (the "Category Hierarchy" ancestor tree), products and the storefront pages."""

    name = "catalog"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        """Connect the catalog version's bump to the ORM's saves and deletes of categories and
        products, and the kept counts of categories to the deletes of products
        (``catalog/receivers.py``), once each however often ``ready`` runs."""
        from .models import Category, Product
        from .receivers import catalog_changed, product_deleted, product_deleting

        for model in (Category, Product):
            for signal in (post_save, post_delete):
                signal.connect(catalog_changed, sender=model,
                               dispatch_uid=f"catalog_version_{signal is post_save}_{model.__name__}")
        pre_delete.connect(product_deleting, sender=Product, dispatch_uid="listing_counts_pre_delete")
        post_delete.connect(product_deleted, sender=Product, dispatch_uid="listing_counts_post_delete")
