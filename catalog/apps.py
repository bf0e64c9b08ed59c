from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class CatalogConfig(AppConfig):
    """Categories (the seeds' ancestor tree), products and the storefront pages."""

    name = "catalog"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        """Connect the catalog version's bump to the ORM's saves and deletes of categories and
        products (``catalog/receivers.py``), once each however often ``ready`` runs."""
        from .models import Category, Product
        from .receivers import catalog_changed

        for model in (Category, Product):
            for signal in (post_save, post_delete):
                signal.connect(catalog_changed, sender=model,
                               dispatch_uid=f"catalog_version_{signal is post_save}_{model.__name__}")
