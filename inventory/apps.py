from django.apps import AppConfig


class InventoryConfig(AppConfig):
    """Stock, carts and checkout ("Inventory Management" use case)."""

    name = "inventory"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from . import checks  # noqa: F401  (registers the system checks)
