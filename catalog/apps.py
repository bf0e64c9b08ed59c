from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """Categories (the seeds' ancestor tree), products and the storefront pages."""

    name = "catalog"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
