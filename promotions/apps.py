from django.apps import AppConfig


class PromotionsConfig(AppConfig):
    """Promotions: discount codes (vouchers), their ranges and benefits, and their claims."""

    name = "promotions"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
