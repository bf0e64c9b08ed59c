"""Template context for every page."""

from django.utils.functional import SimpleLazyObject
from catalog.models import Category


def navigation(request):
    """``top_categories`` for the header navigation.

    Lazy: a view that already read the top categories along with its own
    query passes ``top_categories`` itself, and this costs no round trip.
    """
    return {"top_categories": SimpleLazyObject(Category.objects.top_level)}
