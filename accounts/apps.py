from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Shopper accounts with Django's auth: sign-up, log-in (with the cart merge), the account page."""

    name = "accounts"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import pre_save

        from .signals import merge_cart_at_login, normalize_user_email

        user_logged_in.connect(merge_cart_at_login, dispatch_uid="accounts.merge_cart_at_login")
        pre_save.connect(normalize_user_email, sender=get_user_model(),
                         dispatch_uid="accounts.normalize_user_email")
