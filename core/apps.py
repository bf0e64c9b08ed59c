"""The kernel's app config: it has no models; it is installed for its template filters."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The kernel (``core``): the ``money`` template filter library."""

    name = "core"
    label = "core"
