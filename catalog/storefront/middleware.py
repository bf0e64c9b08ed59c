"""The catalog's middleware: each request's catalog cache scope (``catalog.store.cache``)."""

from catalog.store.cache import close_scope, open_scope
from catalog.models import CatalogVersion


class CatalogVersionMiddleware:
    """Opens each request's catalog cache scope: the versions it needs are read together, at
    most once each in it (``CatalogVersion.objects.tokens``, one round trip), and only if the
    request reads the catalog; a family of them (a category's price bands) in one more when
    a page needs them all (``CatalogVersion.objects.family``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = open_scope(CatalogVersion.objects.tokens, request.get_full_path(), CatalogVersion.objects.family)
        response = None
        try:
            response = self.get_response(request)
            return response
        finally:
            # A refused request (4xx) or a failed one leaves no hint of its path in the cache.
            close_scope(token, answered=response is not None and response.status_code < 400)
