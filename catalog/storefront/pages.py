"""The storefront's pages kept whole as HTML (``catalog/store/pages.py``): the views'
decorator ``kept_page`` and ``render_page``, which renders a page with its holes."""

import functools

from django.http import HttpResponse
from django.template.loader import render_to_string

from catalog.models import CatalogVersion, Product
from catalog.signals import product_viewed
from catalog.store import pages
from catalog.store.cache import in_request
from inventory.models import Inventory


class Rendered:
    """A page ``render_page`` rendered: ``html`` with its holes' markers, ``keep`` (whether the
    view would have it kept: a 200 for a query it understood whole), ``viewed`` (the SKU of
    the product whose view event it sends, or None)."""

    def __init__(self, html, keep, viewed):
        self.html, self.keep, self.viewed = html, keep, viewed


def render_page(request, template, context, status=200, keep=False, viewed=None):
    """Django's ``render`` of ``template`` with ``context`` for a view decorated with
    ``kept_page``: the HTML is rendered with a marker in each hole (``page_holes``), which
    the decorator fills; ``keep`` (bool) and ``viewed`` (a SKU or None) as ``Rendered``'s."""
    html = render_to_string(template, {**context, "page_holes": True}, request)
    response = HttpResponse(html, status=status)
    response.kept_page = Rendered(html, keep and status == 200, viewed)
    return response


def _filled(request, response):
    """``response`` with its holes filled for ``request`` when ``render_page`` rendered it."""
    rendered = getattr(response, "kept_page", None)
    if rendered is not None:
        response.content = pages.fill(rendered.html, request)
    return response


def kept_page(view):
    """Decorator of a storefront view that renders with ``render_page``: a GET or HEAD request
    is answered from the page kept for it (``catalog.store.pages.kept``: its holes filled, the
    product view event sent as the view sends it) when what it shows is unchanged, with no
    template rendered and no model built; else the view runs, and its page is kept when
    ``catalog.store.pages.keep`` allows. Other methods, and requests outside the catalog
    cache's scope (no middleware), run the view."""
    @functools.wraps(view)
    def serve(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD") or not in_request():
            return _filled(request, view(request, *args, **kwargs))
        # The session and the user are read (when there are any) before the render is watched.
        key = pages.page_key(request, pages.visitor_class(request))
        entry = pages.kept(key, Inventory.objects.shown_many)
        if entry is not None:
            if entry["viewed"]:
                product_viewed.send(sender=Product, sku=entry["viewed"], request=request)
            return HttpResponse(pages.fill(entry["html"], request))
        with pages.watch() as record:
            response = view(request, *args, **kwargs)
        rendered = getattr(response, "kept_page", None)
        if rendered is not None and rendered.keep:
            pages.keep(key, rendered.html, record, CatalogVersion.objects.collection.name,
                       Inventory.objects.collection.name, rendered.viewed)
        return _filled(request, response)

    return serve
