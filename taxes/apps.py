from django.apps import AppConfig


class TaxesConfig(AppConfig):
    """Taxes: rates by destination (country, optional region) and tax class; VAT numbers."""

    name = "taxes"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
