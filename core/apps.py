"""The kernel's app config: it has no models; it is installed for its template filters."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The kernel (``core``): the ``money`` template filter library, and the request signals'
    receivers of ``core.afterresponse`` (connected here, before the first request)."""

    name = "core"
    label = "core"

    def ready(self):
        from . import afterresponse  # noqa: F401  (connects its receivers)
