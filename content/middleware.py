"""Reads the footer menu's version with the request's first read of catalog versions."""

from catalog.store.cache import prefetch

from .managers import FOOTER


class ContentVersionMiddleware:
    """After ``catalog.middleware.CatalogVersionMiddleware``: every page shows the footer
    (``{% catalog_fragment "footer" ... scope="footer" %}`` in base.html), so its version is
    read with the page's first read of versions (no round trip of its own)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        prefetch((FOOTER,))
        return self.get_response(request)
