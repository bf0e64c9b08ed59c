"""Stock as the storefront's pages show it: each SKU's available units, kept a moment.

A product page and a listing's cards say "In stock", "Only 3 left" or "Sold out" and
offer a quantity up to the units available. Read from ``inventory`` on every request,
that read was half of a warm product page (issue 41's profile). Here each SKU's
available units are kept in Django's default cache for ``settings.STOCK_SHOWN_SECONDS``
(2 by default; 0 reads the inventory every time), one entry per SKU, so a page asks the
cache for its SKUs at once and reads only the missing ones (one ``$in``).

Freshness: every stock write of ``Inventory.objects`` (a cart's reservation, its change
or release, a restock, an adjustment, the stock feed, an expiry's or a cancellation's
return) forgets its SKUs' entries as it writes (``forget``), so the process that made
a change, and every process when the cache is shared (``CACHE_URL``), shows it on the
next request; another process with its own memory cache shows it within
``STOCK_SHOWN_SECONDS``. Only what pages show comes from here: an add to cart, a
change of quantity and checkout decide on the inventory itself, with conditional
writes, so a shown figure a moment old never sells a unit twice (the shopper is told
"Only N left" by the write's refusal instead).
"""

import contextlib
import contextvars
import functools

from django.conf import settings
from django.core.cache import cache

PREFIX = "stock-shown:"
#: The key of the sold-out SKUs as pages show them (``shown_sold_out``).
SOLD_OUT = PREFIX + "sold-out"
#: What a SKU without an inventory document is kept as (the cache cannot keep None apart
#: from a miss).
NO_RECORD = -1
# The current ``watch()`` record, or None.
_watched = contextvars.ContextVar("stock_shown_watch", default=None)


def _key(sku):
    return PREFIX + str(sku)


def shown_available(skus, read):
    """``{sku: available units}`` of ``skus`` as pages show them: the kept entries, and
    ``read(missing)`` (``{sku: units}`` of the SKUs that have a stock document: one read)
    for the others, kept ``settings.STOCK_SHOWN_SECONDS``. A SKU without a stock document
    is left out, as ``read`` leaves it out. With ``STOCK_SHOWN_SECONDS`` 0 it is ``read(skus)``.
    """
    skus = [str(s) for s in skus]
    seconds = settings.STOCK_SHOWN_SECONDS
    watched = _watched.get()
    if not seconds or not skus:
        shown = read(skus) if skus else {}
        if watched is not None:
            watched.note(skus, shown, reads=1 if skus else 0)
        return shown
    kept = cache.get_many([_key(s) for s in skus])
    found = {s: kept[_key(s)] for s in skus if _key(s) in kept}
    missing = [s for s in skus if s not in found]
    if missing:
        fresh = read(missing)
        found.update(fresh)
        cache.set_many({_key(s): fresh.get(s, NO_RECORD) for s in missing}, seconds)
    shown = {s: units for s, units in found.items() if units != NO_RECORD}
    if watched is not None:
        watched.note(skus, shown, reads=1 if missing else 0)
    return shown


class ShownStock:
    """What ``watch()`` recorded: ``units`` (``{sku: available units, or None without a stock
    record}`` of every SKU shown) and ``reads`` (the reads of the inventory made for them)."""

    def __init__(self):
        self.units, self.reads = {}, 0

    def note(self, skus, shown, reads):
        """Record ``skus`` shown as ``shown`` (``{sku: units}``) after ``reads`` reads."""
        self.units.update({s: shown.get(s) for s in skus})
        self.reads += reads


@contextlib.contextmanager
def watch():
    """Record the stock ``shown_available`` gives in the block (this thread or task): yields a
    ``ShownStock``. A page kept whole as HTML (``catalog/store/pages.py``) is served again only
    while its SKUs show the same units."""
    record = ShownStock()
    token = _watched.set(record)
    try:
        yield record
    finally:
        _watched.reset(token)


def shown_sold_out(read):
    """The SKUs sold out as pages show them (a listing's "in stock" choice): ``read()`` (a
    sorted list of str: ``FacetManager``'s read of the inventory), kept
    ``settings.STOCK_SHOWN_SECONDS`` as one entry, which every stock write forgets
    (``forget``), as each SKU's. With ``STOCK_SHOWN_SECONDS`` 0 it is ``read()``."""
    seconds = settings.STOCK_SHOWN_SECONDS
    if not seconds:
        return read()
    kept = cache.get(SOLD_OUT)
    if kept is None:
        kept = read()
        cache.set(SOLD_OUT, kept, seconds)
    return kept


def forget(skus):
    """Drop the kept entries of ``skus`` (after a write that changed their stock), and the
    sold-out SKUs (``shown_sold_out``)."""
    if settings.STOCK_SHOWN_SECONDS and skus:
        cache.delete_many([_key(s) for s in skus] + [SOLD_OUT])


def forgets(skus_of):
    """Decorator of a stock-writing manager method: after it runs (or fails), ``forget``
    the SKUs ``skus_of(*args, **kwargs)`` names (the method's own arguments)."""
    def wrap(method):
        @functools.wraps(method)
        def written(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            finally:
                forget(list(skus_of(*args, **kwargs)))
        return written
    return wrap
