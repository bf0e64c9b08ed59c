"""App configs: Django's contrib apps with ObjectId primary keys (MongoDB), and the shop's own."""

from axes.apps import AppConfig as AxesConfig
from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig
from django.contrib.auth.apps import AuthConfig
from django.contrib.contenttypes.apps import ContentTypesConfig

OBJECT_ID_AUTO_FIELD = "django_mongodb_backend.fields.ObjectIdAutoField"


class MongoAdminConfig(AdminConfig):
    """Django's admin with ObjectId keys, on the shop's site (the index lists apps' own pages)."""

    default_auto_field = OBJECT_ID_AUTO_FIELD
    default_site = "shop.admin_site.ShopAdminSite"


class MongoAuthConfig(AuthConfig):
    default_auto_field = OBJECT_ID_AUTO_FIELD


class MongoContentTypesConfig(ContentTypesConfig):
    default_auto_field = OBJECT_ID_AUTO_FIELD


class MongoAxesConfig(AxesConfig):
    """django-axes (login rate limit) with ObjectId keys: its records live in MongoDB."""

    default_auto_field = OBJECT_ID_AUTO_FIELD


class ShopConfig(AppConfig):
    """The project app: settings, the MongoDB layer, start-up (``shop.startup``), the health check."""

    name = "shop"
    default_auto_field = OBJECT_ID_AUTO_FIELD

    def ready(self):
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from shop.staffpasswords import record_password

        # The verdict on every password set (shop.staffpasswords: production refuses common ones).
        post_save.connect(record_password, sender=get_user_model(), dispatch_uid="shop.record_password")

        if getattr(settings, "SHOP_DEBUG_TOOLBAR", False):
            # Before any pymongo client exists: the toolbar's MongoDB panel listens to them all.
            from core.mqlpanel import register

            register()
