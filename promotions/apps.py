from django.apps import AppConfig


class PromotionsConfig(AppConfig):
    """Promotions: discount codes (vouchers), their ranges and benefits, and their claims."""

    name = "promotions"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from orders.signals import order_placed

        from .issue import issue_gift_cards
        from .models import Offer

        # Gift cards sold: issued (once) and e-mailed when their order is placed, i.e. paid.
        order_placed.connect(issue_gift_cards, dispatch_uid="promotions.issue_gift_cards", weak=False)

        def forget(sender, **kwargs):
            from .labels import publish

            Offer.objects.forget()
            publish()  # the storefront's labels: the offers' version token

        post_save.connect(forget, sender=Offer, dispatch_uid="promotions.forget_offers_saved", weak=False)
        post_delete.connect(forget, sender=Offer, dispatch_uid="promotions.forget_offers_deleted", weak=False)
