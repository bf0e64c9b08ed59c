from django.apps import AppConfig


class ShippingConfig(AppConfig):
    """Shipping: zones (countries, optional postcode prefixes) and their methods, priced by
    weight bands or order value; the cached table checkout prices from (``shipping.rates``)."""

    name = "shipping"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from .models import ShippingMethod, ShippingZone

        def forget(sender, **kwargs):
            ShippingZone.objects.forget()

        for model in (ShippingZone, ShippingMethod):
            post_save.connect(forget, sender=model, dispatch_uid=f"shipping.forget_{model.__name__}_saved", weak=False)
            post_delete.connect(forget, sender=model, dispatch_uid=f"shipping.forget_{model.__name__}_deleted",
                                weak=False)
