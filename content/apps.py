from django.apps import AppConfig


class ContentConfig(AppConfig):
    """The storefront's staff-edited content: the home page's blocks, content pages, the footer menu."""

    name = "content"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from . import receivers  # noqa: F401 (bumps the versions of what an edit changes)
