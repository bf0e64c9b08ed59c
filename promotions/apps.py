from django.apps import AppConfig


class PromotionsConfig(AppConfig):
    """Promotions: discount codes (vouchers), their ranges and benefits, and their claims."""

    name = "promotions"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from .labels import publish
        from .models import Offer

        def forget(sender, **kwargs):
            Offer.objects.forget()
            publish()  # the storefront's labels: the offers' version token

        post_save.connect(forget, sender=Offer, dispatch_uid="promotions.forget_offers_saved", weak=False)
        post_delete.connect(forget, sender=Offer, dispatch_uid="promotions.forget_offers_deleted", weak=False)
