"""Template context for every page: the footer menu."""

from django.utils.functional import SimpleLazyObject

from .models import FooterLink


def footer(request):
    """``footer_links``: the footer menu (``FooterLink.objects.menu``), read only when the
    footer's cached fragment is cold."""
    return {"footer_links": SimpleLazyObject(FooterLink.objects.menu)}
