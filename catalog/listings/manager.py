"""``Product.objects``' category listings: a page of a category's products in a sort, kept in
two layers so that an edit re-reads what it changes and not the sort.

A page of a category's listing is cached twice (``catalog/store/cache.py``):

- its *order*, the ids and prices of the page's products, which is what
  costs: the local server reads and sorts every product of the category
  (about 40 µs each: 0.7 s for a top category of 17,000). Keyed by which
  products the category lists (``category:<id>``) and by what decides the
  sort: ``order-title:<id>``, ``order-issued:<id>``, or for the sorts by
  price the narrow price bands from the page's first price to its last
  (``prices:<id>:<band>``, named by the page itself). A price edit moves a
  product within the sort by price only between its old and its new price,
  so it cools only the pages whose prices lie in between;
- its *cards*, the documents of those ids as a card shows them, keyed by
  ``cards:<id>``, which every write of a product listed in the category
  bumps: when cold, one read of the page's products by ``_id`` (24 of them)
  from the order, warm or cold.

Stock is never cached: each request reads the page's stock
(``ProductManager.with_availability``).
"""

import datetime

from core import clock

from catalog.store.cache import ISSUED, cached, category_scope, listing_scope, order_scope, prices_scope, shown_products
from catalog.listings.cards import CardList
from catalog.listings.query import CARD_FIELDS, DEFAULT_SORT, SORTS, CountedListing, ProductListing, category_match, page_hint
from catalog.store.siblings import catalog_model

#: The home page's newest products are looked for first among those issued this many days
#: before now (``ProductManager.newest``).
NEWEST_FIRST_WINDOW_DAYS = 90
#: What a page's order keeps of each product: its id, and its price for the sorts by price.
ORDER_FIELDS = {"_id": 1, "pricing.retail": 1}


def _retail(document):
    return (document.get("pricing") or {}).get("retail")


def page_price_scope(category_ids):
    """``shown(order)`` for a page sorted by price of the categories ``category_ids``: the
    ``prices_scope`` from the lowest to the highest price of its products (none for an
    empty page)."""
    def shown(order):
        prices = [_retail(d) or 0 for d in order]
        return prices_scope(category_ids, min(prices), max(prices)) if prices else ()

    return shown


class ListingsMixin:
    """The category listings of ``ProductManager`` (needs ``read_collection``,
    ``with_availability`` and ``card_from_document``)."""

    def listing_stages(self, category_ids, min_cents=None, max_cents=None):
        """The filters of a category page (``listing``'s, without facets) as a list of
        ``$match`` filters, for its facets (``catalog.listings.facets.facet_panel``)."""
        return [category_match(list(category_ids), min_cents, max_cents)]

    def listing(self, category_ids, sort=DEFAULT_SORT, page=1, per_page=24,
                min_cents=None, max_cents=None, refined=None, variant_options=None):
        """The products listed in any of ``category_ids``, sorted by ``sort`` (a key of ``SORTS``),
        with a retail price within ``[min_cents, max_cents]`` (either bound None: no bound).
        ``refined``: the page's filters narrowed by chosen facets (a list of ``$match``
        filters from ``catalog.listings.facets.facet_panel``), which replace those; then the count and
        the page come from one aggregation (a ``ProductListing``), whose cards show the variant
        that matches ``variant_options`` (the variant attributes chosen, ``{code: values}``:
        ``FacetPanel.variant_options``) rather than the product's cheapest.

        Returns a sequence for ``django.core.paginator.Paginator``; ``page`` and
        ``per_page`` tell it which page will be asked for. A category page
        without a price filter is a ``CountedListing``: its count is the
        category's kept count (``ListingCount.objects.listed``: one small
        document, cached), its page read in two layers (``ordered_cards``), and
        newest first its page of a large category from a window of issue dates
        (``newest_page``), so neither matches every product of the category
        more than its order needs. Otherwise a ``ProductListing``: the count
        and that page from a single aggregation over its matches, cold with any
        write of a product listed in the categories. Raises KeyError for an
        unknown sort.
        """
        category_ids = list(category_ids)
        scope = listing_scope(category_ids)
        if refined:  # narrowed by facets
            return ProductListing(self, list(refined), SORTS[sort], page_hint=page_hint(page, per_page),
                                  scope=scope, variant_options=variant_options)
        match = category_match(category_ids, min_cents, max_cents)
        if len(category_ids) == 1 and min_cents is None and max_cents is None:
            category_id = category_ids[0]
            total = cached("listed", category_id,
                           lambda: catalog_model("ListingCount").objects.listed(category_id),
                           category_scope(category_ids))
            return CountedListing(self, match, SORTS[sort], total, newest_first=sort == DEFAULT_SORT,
                                  scope=scope, order=self.order_scope(category_ids, sort))
        return ProductListing(self, match, SORTS[sort], page_hint=page_hint(page, per_page), scope=scope)

    @staticmethod
    def order_scope(category_ids, sort):
        """``(scope, shown)`` of the order of a listing of ``category_ids`` sorted by ``sort``
        (see the module docstring), for ``ordered_cards``."""
        scope = category_scope(category_ids)
        if sort in ("price", "-price"):
            return scope, page_price_scope(category_ids)
        field = {"title": "title", "newest": "issued"}[sort]
        return scope + order_scope(category_ids, field), None

    def ordered_cards(self, key, read_order, scope, order):
        """A page of a listing read in two layers (see the module docstring), as cards with
        their availability (a ``CardList``).

        ``key``: what names the page (its filter, sort and slice); ``read_order()`` reads
        the page's products in order with ``ORDER_FIELDS`` (a list of documents);
        ``scope``: the cards' (``listing_scope``); ``order``: ``(scope, shown)`` of the
        order (``order_scope``). Warm: no round trip for the page; cards cold: one read
        of the page's products by ``_id``; the order cold too: ``read_order``'s. Then the
        stock of the cards (one read)."""
        order_scope_, shown = order

        def read_cards():
            ordered = cached("listing-order", key, read_order, order_scope_, shown)
            ids = [d["_id"] for d in ordered]
            if not ids:
                return []
            found = {d["_id"]: d for d in self.read_collection.find({"_id": {"$in": ids}}, CARD_FIELDS)}
            return [found[i] for i in ids if i in found]

        documents = cached("listing-cards", key, read_cards, (*scope, *order_scope_))
        return CardList(self.with_availability(documents), self.card_from_document)

    def sorted_page(self, match, sort, start, stop, scope, order):
        """The products ``[start:stop]`` (``stop`` None: to the end) of those matching
        ``match`` in the order ``sort`` (a list of ``(field, direction)``), read in two layers
        (``ordered_cards``: the order is one aggregation, match, sort, skip, limit)."""
        def read_order():
            pipeline = [{"$match": match}, {"$sort": dict(sort)}, {"$skip": start}]
            if stop is not None:
                pipeline.append({"$limit": max(stop - start, 1)})
            pipeline.append({"$project": ORDER_FIELDS})
            return list(self.read_collection.aggregate(pipeline))

        return self.ordered_cards(("sorted", match, sort, start, stop), read_order, scope, order)

    def newest_page(self, match, start, stop, scope, shown=None, order=None, stock=True):
        """The products ``[start:stop]`` of those matching ``match``, newest first (``SORTS['newest']``),
        as cards with their availability (a ``CardList``).

        SecantusDB 0.7.0b3 never sorts from an index: a sort of a category's
        (docs/local-server-differences.md: local-server difference 6)
        products reads and sorts every one of them (about 1.2 s for 10,000).
        So they are looked for among the products issued since a point
        before now (90 days, then 4 times further back each time), which the
        ``listed_in_issue_date`` and ``issue_date`` indexes serve, until that
        window holds ``stop`` of them: the newest of such a window are the
        newest of all (everything outside it was issued earlier). Before 1900
        the window becomes every match (products without an issue date come
        last, as in the plain sort). A real MongoDB serves each read from the
        same index. Cached under ``scope`` (``shown``: see ``cache.cached``), or with
        ``order`` (``order_scope``) in two layers (``ordered_cards``); usually 1 to
        5 aggregations of a few hundred products at most when cold, then the stock
        of the cards (one read; ``stock=False``: none, the documents without ``available``, for
        a caller that reads the stock of several lists at once with ``with_availability``).
        """
        def read(projection):
            now, days = clock.now(), NEWEST_FIRST_WINDOW_DAYS
            while True:
                since = now - datetime.timedelta(days=days)
                window = {**match, "details.issue_date": {"$gte": since}} if since.year >= 1900 else match
                pipeline = [{"$match": window}, {"$sort": dict(SORTS["newest"])}, {"$skip": start},
                            {"$limit": max(stop - start, 1)}, {"$project": projection}]
                documents = list(self.read_collection.aggregate(pipeline))
                if len(documents) >= stop - start or window is match:
                    return documents
                days *= 4

        if order is not None:
            return self.ordered_cards(("newest", match, start, stop), lambda: read(ORDER_FIELDS), scope, order)
        documents = cached("newest_page", (match, start, stop), lambda: read(CARD_FIELDS), scope, shown)
        if not stock:
            return CardList(documents, self.card_from_document)
        return CardList(self.with_availability(documents), self.card_from_document)

    def newest(self, limit=8):
        """The ``limit`` newest products by issue date (cards, with availability), for the home
        page: the same as a sort of every product on ``details.issue_date``, newest first,
        read from windows of issue dates (``newest_page``): usually 1 to 4 aggregations when
        cold, then the stock of the cards (one read)."""
        return list(self.newest_page({}, 0, int(limit), scope=(ISSUED,), shown=shown_products))

