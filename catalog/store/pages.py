"""Whole storefront pages kept as HTML, with holes for what is each request's own.

A warm product or category page was rendered from kept fragments (``{% catalog_fragment %}``)
and kept reads, yet the template work around them (the base template, the facets, the
pagination, the buy box: some 1,800 nodes on a product page) cost more than its reads. So
the page itself is kept, in the catalog cache (``catalog/store/cache.py``), one entry per
path and query (as the request spelled it), visitor's class (guest, shopper or staff: the
header's account link), scheme and host (the breadcrumbs' JSON-LD holds absolute URLs):

- ``html``: the page with a marker in each hole;
- ``names`` and ``tokens``: the scopes whose versions the page's reads and fragments asked
  for, with the tokens read (``watch_page``);
- ``stock``: the units each SKU it shows had (``inventory.shown``: kept
  ``STOCK_SHOWN_SECONDS``, forgotten by every stock write);
- ``kept``: values it showed that are kept a while without a version (a listing's in-stock
  count) and ``until``: the moment it changes by itself (an offer starting or ending);
- ``viewed``: the SKU whose view event a product page sends.

``kept`` serves it again when all of these still hold: the versions (the request's one read
of versions), the stock (no read while kept; one read of the SKUs when it lapsed), the kept
values (cache reads), the clock. A page is kept (``keep``) only after a render that read
nothing but versions and the stock it shows, every value found kept (a first visit computes
and is not kept: its second is, so the third is served from here), with a 200, and only
for a query the view understood whole (``understood``: random parameters make no entry).

The holes (``HOLES``), filled by ``fill`` on every answer, kept or rendered (the page's
template renders ``{% page_hole "name" %}`` as a marker when ``page_holes`` is in its
context, and the hole's value otherwise, so other pages show the same): the CSRF token's
input (``get_token``: the cookie is set as ``{% csrf_token %}`` sets it), the cart count
(the session's ``cart_count``) and the messages (read, so they are shown once). A marker
holds a secret derived from ``SECRET_KEY``: no text of a page can spell one. A hole is never
inside a kept fragment.
"""

import contextlib

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.core.signals import setting_changed
from django.middleware.csrf import get_token
from django.utils import formats
from django.utils.crypto import salted_hmac
from django.utils.html import conditional_escape, format_html, format_html_join

from core import clock
from core.mongo.counter import WRITE_OPERATIONS, count_operations
from inventory import shown as stock_shown

from catalog.store.cache import cache_key, page_dependencies, versions, watch_page

#: Bumped by every settings change (tests' ``override_settings``): in every page's key, so a
#: page kept under other settings (the tax note, the page size...) is not served.
_generation = [0]
_secrets = {}


def _settings_changed(**kwargs):
    _generation[0] += 1


setting_changed.connect(_settings_changed, dispatch_uid="catalog.store.pages.settings")


def marker(name):
    """The marker of the hole ``name`` in a kept page's HTML (str): an HTML comment holding a
    secret derived from ``SECRET_KEY`` (the same in every process)."""
    secret = _secrets.get(settings.SECRET_KEY)
    if secret is None:
        secret = _secrets[settings.SECRET_KEY] = salted_hmac(
            "catalog.store.pages", "holes", algorithm="sha256").hexdigest()[:24]
    return f"<!--page-hole:{name}:{secret}-->"


def _csrf_input(request):
    """What ``{% csrf_token %}`` renders: the hidden input with a masked token (and the CSRF
    cookie set or renewed by the middleware, as ``get_token`` asks)."""
    if request is None:
        return ""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request))


def _cart_count(request):
    """The header's cart count: the session's ``cart_count`` (0 without one), escaped."""
    session = getattr(request, "session", None)
    count = (session.get("cart_count") if session is not None else None) or 0
    return conditional_escape(str(formats.localize(count)))


def _messages(request):
    """The messages for the shopper (``<ul class="messages">``), read (so shown once), or ""."""
    storage = get_messages(request) if request is not None else ()
    if not storage:
        return ""
    return format_html('<ul class="messages">{}</ul>', format_html_join(
        "", '<li class="{}">{}</li>', ((message.tags, str(message)) for message in storage)))


#: The holes of a kept page: name -> the function of the request that fills it (safe HTML).
HOLES = {"csrf": _csrf_input, "cart_count": _cart_count, "messages": _messages}


def hole(name, request):
    """The value (safe HTML, str) of the hole ``name`` (a key of ``HOLES``) for ``request``
    (an HttpRequest, or None outside one). Raises KeyError for an unknown name."""
    return HOLES[name](request)


def fill(html, request):
    """``html`` with each hole's marker replaced by its value for ``request``; a hole the page
    does not have is not computed (a page without a form sets no CSRF cookie)."""
    for name, value in HOLES.items():
        mark = marker(name)
        if mark in html:
            html = html.replace(mark, value(request))
    return html


def visitor_class(request):
    """``"guest"``, ``"shopper"`` (signed in) or ``"staff"``: what a kept page differs by besides
    its holes (the header's account link). Loads the request's session and user."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return "guest"
    return "staff" if user.is_staff else "shopper"


def page_key(request, visitor):
    """The cache key (str) of the kept page of ``request`` (its path and query as spelled, its
    scheme and host) for a visitor of class ``visitor`` (``visitor_class``)."""
    return cache_key("page", (request.get_full_path(), visitor, request.scheme, request.get_host(),
                              _generation[0]), ())


def understood(params, accepted):
    """Whether the query ``params`` (a QueryDict) holds only pairs of ``accepted`` (a set of
    ``(name, value)``: what the view read and shows, spelled as it would spell them), each
    once: only such a page is kept, so random parameters make no entry."""
    pairs = [(name, value) for name, values in params.lists() for value in values]
    return len(pairs) == len(set(pairs)) and set(pairs) <= accepted


class PageRecord:
    """What ``watch`` recorded of a page's render: ``dependencies`` (``page_dependencies``),
    ``stock`` (an ``inventory.shown.ShownStock``), ``operations`` (the round trips, an
    ``OperationCount``)."""

    def __init__(self, dependencies, stock, operations):
        self.dependencies, self.stock, self.operations = dependencies, stock, operations

    def read_only_versions_and_stock(self, versions_collection, stock_collection):
        """Whether the render read nothing but the collection ``versions_collection`` and the
        stock it shows from ``stock_collection`` (its writes, the view event, are not reads)."""
        reads = [collection for collection, operation in self.operations.operations
                 if operation not in WRITE_OPERATIONS]
        stock_reads = reads.count(stock_collection)
        return (all(c in (versions_collection, stock_collection) for c in reads)
                and stock_reads <= self.stock.reads)


@contextlib.contextmanager
def watch():
    """Record what the page rendered in the block depends on: yields a ``PageRecord`` whose
    ``dependencies`` is set when the block ends (None outside a request)."""
    with stock_shown.watch() as stock, count_operations(this_thread=True) as operations:
        recording = watch_page()
        record = PageRecord(None, stock, operations)
        try:
            yield record
        finally:
            record.dependencies = page_dependencies(recording)


def keep(key, html, record, versions_collection, stock_collection, viewed=None):
    """Keep the page ``html`` (with its markers) under ``key`` (``page_key``) for
    ``CATALOG_CACHE_SECONDS`` when ``record`` (of ``watch``) says its render read nothing but
    versions (``versions_collection``) and its stock (``stock_collection``) and every value it
    showed can be checked again; ``viewed``: the SKU whose view event serving it sends.
    Returns whether it was kept."""
    if record.dependencies is None or not record.read_only_versions_and_stock(versions_collection,
                                                                             stock_collection):
        return False
    names, tokens, kept_values, until = record.dependencies
    caches[settings.CATALOG_CACHE].set(key, {
        "html": html, "names": names, "tokens": tokens, "kept": kept_values, "until": until,
        "stock": dict(record.stock.units), "viewed": viewed,
    }, settings.CATALOG_CACHE_SECONDS)
    return True


def kept(key, stock_reader):
    """The kept page under ``key`` (a dict: ``html``, ``viewed``; see the module) when what it
    shows is unchanged, else None. Costs the request's read of versions (none more when they
    were read), cache reads, and ``stock_reader(skus)`` (``{sku: units}`` as pages show stock:
    a read only when the kept stock lapsed)."""
    store = caches[settings.CATALOG_CACHE]
    entry = store.get(key)
    if entry is None:
        return None
    if entry["until"] is not None and clock.now() >= entry["until"]:
        return None
    if versions(entry["names"]) != entry["tokens"]:
        return None
    if entry["kept"] and store.get_many(list(entry["kept"])) != entry["kept"]:
        return None
    stock = entry["stock"]
    if stock:
        units = stock_reader(list(stock))
        if {sku: units.get(sku) for sku in stock} != stock:
            return None
    return entry
