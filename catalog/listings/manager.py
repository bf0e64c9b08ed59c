"""``Product.listings`` (``ListingManager``): lists of product cards with their stock, for the
storefront's pages: a category's listing, the "Product Catalog" use case's queries an index
sorts (by genre, artist, actor; the deals), the home page's newest, and the cards that
searches (``Product.search``) and hand-picked rows (``content``) read. The queries are built in
``catalog/listings/query.py``.

A page of a category's listing is cached twice (``catalog/store/cache.py``), so that an
edit re-reads what it changes and not the sort:

- its *order*, the ids and prices of the page's products, which is what
  costs: the local server reads and sorts every product of the category
  (about 40 µs each: 0.7 s for a top category of 17,000), so a category of
  more than ``WINDOWED_FROM`` products reads newest first from windows of
  issue dates (``newest_page``) and by price or title only the chunks of the
  order that hold the page's rows (``kept_order``, ``OrderCount.objects``). Keyed by which
  products the category lists (``category:<id>``) and by what decides the
  sort: ``order-title:<id>``, ``order-issued:<id>``, or for the sorts by
  price the narrow price bands from the page's first price to its last
  (``prices:<id>:<band>``, named by the page itself). A price edit moves a
  product within the sort by price only between its old and its new price,
  so it cools only the pages whose prices lie in between;
- its *cards*, the documents of those ids as a card shows them, keyed by the
  order's scope and the versions of the products the page shows
  (``product:<sku>``, named by the order, which keeps their SKUs), so that an
  edit of a product cools only the pages that show it, not every page of its
  categories (``cards:<id>``): when cold, one read of the page's products by
  ``_id`` (24 of them) from the order, warm or cold.

Stock is never cached: each request reads the page's stock
(``ListingManager.with_availability``).
"""

import datetime
import hashlib

from bson import ObjectId
from django.conf import settings
from django.db import models

from core import clock
from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import (ISSUED, PRODUCTS, cached, category_scope, faceted_scope,
                                 listing_scope, order_scope, prices_family, prices_scope, product_scope)
from catalog.listings.cards import CardList
from catalog.listings.query import (CARD_FIELD_NAMES, CARD_FIELDS, DEFAULT_SORT, SORTS, CountedListing, DealsListing,
                                    FacetedListing, ProductListing, ProductQuery, category_match, page_hint)
from catalog.listings.deals import MOST_PCT_SAVINGS, DealsMixin
from catalog.listings.ranking import what_matched
from catalog.products.variants import sellable_skus
from catalog.store.siblings import catalog_model
from inventory.models import Inventory

#: The home page's newest products are looked for first among those issued this many days
#: before now (``ListingManager.newest``).
NEWEST_FIRST_WINDOW_DAYS = 90
#: What a page's order keeps of each product: its id, its SKU (the version of its card,
#: ``product:<sku>``), and its price for the sorts by price.
ORDER_FIELDS = {"_id": 1, "sku": 1, "pricing.retail": 1}


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


class ListingManager(DealsMixin, MongoCollectionMixin, models.Manager):
    """``Product.listings``: the storefront's lists of product cards (see the module
    docstring). The listings it returns (``catalog/listings/query.py``) read their count and
    pages through it."""

    def with_availability(self, documents):
        """``documents`` (product documents with ``sku``, and ``variants.sku`` for those that
        have variants), each given ``available``: the units of the SKUs it sells available now
        (int; a product with variants the sum over its variants, each of which gets its own
        ``available``), or None without a stock record. The stock as pages show it
        (``Inventory.objects.shown_many``: kept ``STOCK_SHOWN_SECONDS`` per SKU and forgotten
        by every stock write; one read of the SKUs not kept, none for no documents).
        Returns ``documents``."""
        if not documents:
            return documents
        stock = Inventory.objects.shown_many(
            [sku for d in documents for sku in sellable_skus(d["sku"], d.get("variants"))])
        for document in documents:
            variants = document.get("variants") or []
            for variant in variants:
                variant["available"] = stock.get(variant.get("sku"))
            if variants:
                known = [v["available"] for v in variants if v["available"] is not None]
                document["available"] = sum(known) if known else None
            else:
                document["available"] = stock.get(document["sku"])
        return documents

    def card_from_document(self, document, fields=CARD_FIELD_NAMES):
        """A Product from a document given its stock by ``with_availability``;
        ``product.available`` is the SKU's available units (int) or None when it has no
        stock record, and ``product.matched`` what a search matched
        (``ranking.what_matched``); ``product.shown_variant`` None (a listing narrowed by a
        variant attribute sets the variant its card shows: ``catalog.listings.cards.CardList``)."""
        product = self.from_document(document, fields)
        product.available = document.get("available")
        product.shown_variant = None
        if fields is None or "variants" in fields:
            for variant, stored in zip(product.variants or (), document.get("variants") or ()):
                variant.available = stored.get("available")
        product.matched = what_matched(document)
        return product

    def cards(self, pipeline, fields=CARD_FIELD_NAMES, scope=(PRODUCTS,), shown=None, by_sku=False):
        """Run ``pipeline`` on the read preference (one aggregation, cached under ``scope``, the
        listing's: ``catalog/store/cache.py``), then read the stock of its products (one read).
        Returns its documents as cards (``card_from_document``). ``shown``: see ``cache.cached``.
        ``by_sku``: the pipeline gives the page's order (documents with ``sku``), whose cards
        are read by SKU under their products' versions (as ``counted_cards``)."""
        documents = cached("cards", pipeline, lambda: list(self.read_collection.aggregate(pipeline)), scope,
                           shown)
        if by_sku:
            documents = self._cards_of_order(documents)
        return CardList(self.with_availability(documents), lambda d: self.card_from_document(d, fields))

    def cards_by_sku(self, skus, scope):
        """The card documents (``CARD_FIELDS``, without stock) of the products whose own SKUs
        are ``skus`` (a list of str), in that order, those that exist: one read by the ``sku``
        index when cold, cached under ``scope`` (the caller's: ``product_scope(skus)`` for a
        hand-picked row). The caller reads the stock (``with_availability``)."""
        skus = [str(s) for s in skus]
        if not skus:
            return []

        def read():
            found = {d["sku"]: d for d in self.read_collection.find({"sku": {"$in": skus}}, CARD_FIELDS)}
            return [found[s] for s in skus if s in found]

        return cached("cards-by-sku", tuple(skus), read, tuple(scope))

    def counted_cards(self, pipeline, scope=(PRODUCTS,), shown=None, variant_options=None, by_sku=False):
        """Run ``pipeline``, whose last stage is ``$facet {total: [$count n], items: [...]}``
        (one aggregation, cached under ``scope``, the listing's), then read the stock of the
        items (one read). Returns ``(total, cards)``; ``variant_options``: the variant
        attributes chosen (``{code: values}``), whose matching variant each card shows
        (``catalog.listings.cards.CardList``).

        ``by_sku``: the items are the page's order (each with ``sku`` and what the pipeline
        computed, e.g. a search's ``rank``), whose cards are read by SKU (``cards_by_sku``:
        one read when cold, cached under ``product:<sku>`` of each, whose versions are known
        before the read) and given the order's fields: a search by relevance is kept from
        its first request, its order under its words' versions and its cards under its
        products', so a price edit re-reads its cards, not its order."""
        def read():
            result = next(iter(self.read_collection.aggregate(pipeline)), {"total": [], "items": []})
            return (result["total"][0]["n"] if result["total"] else 0), result["items"]

        total, documents = cached("counted_cards", pipeline, read, scope,
                                  None if shown is None else lambda value: shown(value[1]))
        if by_sku:
            documents = self._cards_of_order(documents)
        return total, CardList(self.with_availability(documents), self.card_from_document, variant_options)

    def _cards_of_order(self, order):
        """The card documents of ``order`` (documents with ``sku``, in order), each given the
        order's other fields (``_id`` aside): ``cards_by_sku`` under the products' versions."""
        skus = [d["sku"] for d in order]
        computed = {d["sku"]: {k: v for k, v in d.items() if k != "_id"} for d in order}
        return [{**card, **computed[card["sku"]]} for card in self.cards_by_sku(skus, product_scope(skus))]

    def ranked_cards(self, order, variant_options=None):
        """The cards of ``order`` (``search_ranked``'s) with their availability: read by SKU under
        their products' versions (``cards_by_sku``: one read when cold), given the order's
        fields, then their stock (one read). A ``CardList``."""
        return CardList(self.with_availability(self._cards_of_order(order)), self.card_from_document,
                        variant_options)

    def count_matching(self, match, scope=(PRODUCTS,)):
        """How many products match the filter ``match`` (one ``count_documents``, cached under
        ``scope``, the listing's)."""
        return cached("count", match, lambda: self.read_collection.count_documents(match), scope)

    def explain_find(self, match, projection, sort=None):
        """The server's ``explain`` (a dict) of the find of the first product of ``match``."""
        cursor = self.read_collection.find(match, projection)
        return (cursor.sort(sort) if sort else cursor).limit(1).explain()


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
        total = getattr(refined, "total", None)
        if refined and total is not None and sort == DEFAULT_SORT and len(category_ids) == 1 \
                and min_cents is None and max_cents is None and len(refined.stages) == 1:
            # Narrowed by facets, newest first: the count is the facet counts' (kept), the page
            # read as the category's is (windows of issue dates), narrowed by the choice.
            # Its cards keyed by their products' versions (``ordered_cards``), not ``cards:``: an
            # edit of a product it does not show leaves them warm.
            return FacetedListing(self, refined, total, scope=category_scope(category_ids),
                                  order=self.faceted_order_scope(category_ids), variant_options=variant_options)
        if refined:  # narrowed by facets
            return ProductListing(self, list(refined), SORTS[sort], page_hint=page_hint(page, per_page),
                                  scope=scope, variant_options=variant_options)
        match = category_match(category_ids, min_cents, max_cents)
        if len(category_ids) == 1 and min_cents is None and max_cents is None:
            category_id = category_ids[0]
            total = cached("listed", category_id,
                           lambda: catalog_model("ListingCount").objects.listed(category_id),
                           category_scope(category_ids))
            # Its cards keyed by their products' versions (``ordered_cards``), not ``cards:``.
            return CountedListing(self, match, SORTS[sort], total, newest_first=sort == DEFAULT_SORT,
                                  scope=category_scope(category_ids), order=self.order_scope(category_ids, sort))
        return ProductListing(self, match, SORTS[sort], page_hint=page_hint(page, per_page), scope=scope)

    @staticmethod
    def faceted_order_scope(category_ids):
        """``(scope, None, None)`` of the newest-first order of a listing of ``category_ids``
        narrowed by facets (``ordered_cards``): which products the categories list, their issue
        dates and what their facets hold (``faceted:``: type, facet price band, details,
        variants' options). The "in stock" choice is in its key (the sold-out SKUs)."""
        return (category_scope(category_ids) + order_scope(category_ids, "issued")
                + faceted_scope(category_ids), None, None)

    @staticmethod
    def order_scope(category_ids, sort):
        """``(scope, shown, family)`` of the order of a listing of ``category_ids`` sorted by
        ``sort`` (see the module docstring), for ``ordered_cards``: sorted by price, ``shown``
        names the page's price bands and ``family`` (one category's: ``"prices:<id>:"``) the
        prefix of all of them, read whole before the order is read (``cache.cached``), so the
        order is kept from the page's first request; else ``shown`` and ``family`` are None."""
        scope = category_scope(category_ids)
        if sort in ("price", "-price"):
            family = prices_family(category_ids[0]) if len(set(category_ids)) == 1 else None
            return scope, page_price_scope(category_ids), family
        field = {"title": "title", "newest": "issued"}[sort]
        return scope + order_scope(category_ids, field), None, None

    def ordered_cards(self, key, read_order, scope, order, variant_options=None):
        """A page of a listing read in two layers (see the module docstring), as cards with
        their availability (a ``CardList``).

        ``key``: what names the page (its filter, sort and slice); ``read_order()`` reads
        the page's products in order with ``ORDER_FIELDS`` (a list of documents);
        ``scope``: what the cards are keyed by besides the order's scope and the versions
        of the products they show (``product:<sku>`` of each SKU of the order: an edit of
        another product of the category leaves them warm); ``order``: ``(scope, shown,
        family)`` of the order (``order_scope``). Warm: no round trip for the page; cards
        cold: one read of the page's products by ``_id``; the order cold too:
        ``read_order``'s. Then the stock of the cards (one read). ``variant_options``: as
        ``CardList``'s."""
        order_scope_, shown, family = order
        ordered = cached("page-order", key, read_order, order_scope_, shown, family)
        ids = [d["_id"] for d in ordered]

        def read_cards():
            if not ids:
                return []
            found = {d["_id"]: d for d in self.read_collection.find({"_id": {"$in": ids}}, CARD_FIELDS)}
            return [found[i] for i in ids if i in found]

        # A SKU changed bumps the category's version (``catalog/store/writes.py``): the order
        # names the SKUs whose versions key its cards.
        documents = cached("listing-cards", (key, tuple(ids)), read_cards,
                           (*scope, *order_scope_, *product_scope(d.get("sku") for d in ordered)))
        return CardList(self.with_availability(documents), self.card_from_document, variant_options)

    def sorted_page(self, match, sort, start, stop, scope, order, kept=False, narrowed=(), variant_options=None):
        """The products ``[start:stop]`` (``stop`` None: to the end) of those matching
        ``match`` and then each filter of ``narrowed`` (further ``$match`` stages: a facet
        choice's) in the order ``sort`` (a list of ``(field, direction)``), read in two layers
        (``ordered_cards``: the order is one aggregation, match, sort, skip, limit).
        ``kept``: a page of one category sorted by price or title, nothing narrowed, reads its
        order from the chunks its kept order counts name (``kept_order``) when they can, not
        from a sort of every product of the category."""
        narrowed = list(narrowed)

        def read_order():
            if kept and not narrowed:
                documents = self.kept_order(match, sort, start, stop)
                if documents is not None:
                    return documents
            pipeline = [{"$match": match}, *({"$match": f} for f in narrowed), {"$sort": dict(sort)},
                        {"$skip": start}]
            if stop is not None:
                pipeline.append({"$limit": max(stop - start, 1)})
            pipeline.append({"$project": ORDER_FIELDS})
            return list(self.read_collection.aggregate(pipeline))

        key = ("sorted", match, sort, start, stop, *((narrowed,) if narrowed else ()))
        return self.ordered_cards(key, read_order, scope, order, variant_options)

    def kept_order(self, match, sort, start, stop):
        """The products ``[start:stop]`` (``ORDER_FIELDS``, in order) of the category ``match``
        names (``{"listed_in": <id>}``, nothing else) sorted by ``sort`` (``SORTS["price"]``,
        ``["-price"]`` or ``["title"]``), read from the chunks of its kept order counts
        (``OrderCount.objects.chunks``) that hold those rows: one aggregation of a range of the
        sorted field (from the first chunk's first value to the next chunk's), on the
        ``listed_in_retail`` or ``listed_in_title`` index, sorted, skipped and limited as the
        whole sort would be, so it examines about the page's products, not the category's.
        None, for the caller to sort every match, when the page is of another kind, reaches
        the products without a price or title (no range reads them), lies past the counted
        products, or the read finds another number of products than the counts promise."""
        kind = {"price": "price", "-price": "price", "title": "title"}.get(
            next((name for name, order in SORTS.items() if order == list(sort)), None))
        category_id = match.get("listed_in") if set(match) == {"listed_in"} else None
        if kind is None or not isinstance(category_id, ObjectId) or stop is None or stop <= start:
            return None
        chunks = catalog_model("OrderCount").objects.chunks(category_id, kind)
        descending = list(sort) == SORTS["-price"]
        if descending:  # the products without a price come last (MongoDB sorts null first)
            chunks = [c for c in chunks if not c.odd][::-1] + [c for c in chunks if c.odd]
        total = sum(c.n for c in chunks)
        if start >= total:
            return None
        before, first, last, skip = 0, None, None, 0
        for index, chunk in enumerate(chunks):
            if first is None and before + chunk.n > start:
                first, skip = index, start - before
            before += chunk.n
            if first is not None:
                last = index
                if before >= stop:
                    break
        if any(c.odd for c in chunks[first:last + 1]):
            return None
        field = sort[0][0]
        if descending:
            bounds = {"$gte": chunks[last].first, **({"$lt": chunks[first - 1].first} if first else {})}
        else:
            following = chunks[last + 1].first if last + 1 < len(chunks) else None
            bounds = {"$gte": chunks[first].first, **({"$lt": following} if following is not None else {})}
        pipeline = [{"$match": {**match, field: bounds}}, {"$sort": dict(sort)}, {"$skip": skip},
                    {"$limit": stop - start}, {"$project": ORDER_FIELDS}]
        documents = list(self.read_collection.aggregate(pipeline))
        return documents if len(documents) == min(stop, total) - start else None

    def newest_page(self, match, start, stop, scope, shown=None, order=None, stock=True, by_sku=False,
                    narrowed=(), variant_options=None):
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
        ``by_sku`` (instead of ``shown``): the page's order (SKUs) is kept under ``scope`` and
        its cards read by SKU under their products' versions (``cards_by_sku``: one read when
        cold), so it is kept from its first request; such a list from its first product (the
        home page's) keeps where it ended (``NewestWindow.objects``: one read and, when it
        moved, one write, when cold) and reads from there first: one window of about the
        products it shows rather than windows from 90 days before now. ``narrowed``: further
        filters (a facet choice's), each a ``$match`` after the window's, so that the window's
        alone is served by the index (local-server difference 14 in
        docs/local-server-differences.md; a real MongoDB merges them); a window then holds the
        page once ``stop`` of its products match them all. The first page of such a list (with
        ``order``: a category page narrowed by facets) keeps where it ended too, as the home
        page's does (narrowed past 90 days, its first windows read every product of the
        category issued since: a few hundred of a large one). ``variant_options``: as
        ``CardList``'s (with ``order``).
        """
        narrowed = list(narrowed)
        # The home page's lists (by SKU, from the first product) and a category's first page
        # narrowed by facets keep where they ended.
        keep_window = start == 0 and (by_sku and order is None and not narrowed or order is not None and narrowed)

        def read(projection):
            key = window_key((match, narrowed) if narrowed else match, start, stop) if keep_window else None
            kept = catalog_model("NewestWindow").objects.since(key) if key else None
            documents = None
            if isinstance(kept, datetime.datetime):
                # From where this list ended last time ("after the millisecond before": the
                # local server leaves out a bound's own date, as in ``part_range``).
                # (docs/local-server-differences.md: local-server difference 7)
                documents = self._newest_window(match, {"$gt": kept - datetime.timedelta(milliseconds=1)},
                                                start, stop, projection, narrowed)
                if len(documents) < stop - start:
                    documents = None
            now, days = clock.now(), NEWEST_FIRST_WINDOW_DAYS
            while documents is None:
                since = now - datetime.timedelta(days=days)
                bound = {"$gte": since} if since.year >= 1900 else None
                documents = self._newest_window(match, bound, start, stop, projection, narrowed)
                if len(documents) < stop - start and bound is not None:
                    documents, days = None, days * 4
            last = (documents[-1].get("details") or {}).get("issue_date") if documents else None
            if key and isinstance(last, datetime.datetime) and last != kept:
                catalog_model("NewestWindow").objects.keep(key, last)
            return [_without_issue_date(d, projection) for d in documents]

        if order is not None:
            key = ("newest", match, start, stop, *((narrowed,) if narrowed else ()))
            return self.ordered_cards(key, lambda: read(ORDER_FIELDS), scope, order, variant_options)
        if by_sku:
            documents = self._cards_of_order(cached("newest_page", (match, start, stop, "by sku"),
                                                    lambda: read({"sku": 1}), scope))
        else:
            documents = cached("newest_page", (match, start, stop), lambda: read(CARD_FIELDS), scope, shown)
        if not stock:
            return CardList(documents, self.card_from_document)
        return CardList(self.with_availability(documents), self.card_from_document)

    def _newest_window(self, match, issued, start, stop, projection, narrowed=()):
        """The products ``[start:stop]`` of those matching ``match`` and issued within ``issued``
        (a ``$match`` condition on ``details.issue_date``, None: any), then each filter of
        ``narrowed`` (a ``$match`` stage each), newest first, with ``projection`` and their
        issue date: one aggregation."""
        window = {**match, "details.issue_date": issued} if issued is not None else match
        pipeline = [{"$match": window}, *({"$match": f} for f in narrowed), {"$sort": dict(SORTS["newest"])},
                    {"$skip": start},
                    {"$limit": max(stop - start, 1)}, {"$project": {**projection, "details.issue_date": 1}}]
        return list(self.read_collection.aggregate(pipeline))

    def newest(self, limit=8):
        """The ``limit`` newest products by issue date (cards, with availability), for the home
        page: the same as a sort of every product on ``details.issue_date``, newest first,
        read from windows of issue dates (``newest_page``): usually 1 to 4 aggregations when
        cold, their cards by SKU (``by_sku``), then the stock of the cards (one read)."""
        return list(self.newest_page({}, 0, int(limit), scope=(ISSUED,), by_sku=True))

    # -- storefront queries ("Product Catalog" use case "Operations") ----------------------

    def by_genre(self, genre, product_type=None):
        """Products of type ``product_type`` (default ``settings.CATALOG_GENRE_TYPE``) in ``genre``.

        The "Product Catalog" use case "Find albums by genre and sort by year produced", served by
        the ``(type, details.genre, details.issue_date -1)`` index. Returns a
        ``ProductQuery`` (count + one page: 2 round trips).
        """
        return ProductQuery(self, {
            "type": str(product_type or settings.CATALOG_GENRE_TYPE),
            "details.genre": str(genre),
        }, SORTS["newest"])

    def deals(self, min_pct_savings=0):
        """Products saving more than ``min_pct_savings`` percent, biggest saving first.

        The "Product Catalog" use case "Find products sorted by percentage discount descending",
        served by the ``pricing.pct_savings`` index. Ties come in ``_id``
        order. Returns a ``DealsListing``: counted and read per saving, so that a price
        edit re-reads only the savings it changes (``catalog/store/cache.py``).
        """
        return DealsListing(self, int(min_pct_savings), MOST_PCT_SAVINGS)

    def by_artist(self, artist):
        """The albums and TV seasons of ``artist`` (exact name), newest first.

        Served by the ``(details.artist, details.issue_date -1)`` index: only
        albums and TV seasons have an artist, so no type is named (an ``$in``
        of the two types made SecantusDB 0.7.0b3 scan). Returns a ``ProductQuery``.
        (docs/local-server-differences.md: local-server difference 17)
        """
        return ProductQuery(self, {"details.artist": str(artist)}, SORTS["newest"])

    def by_actor(self, actor):
        """Products of type ``settings.CATALOG_ACTOR_TYPE`` starring ``actor`` (exact), newest first.

        The "Product Catalog" use case "Find movies based on starring actor", served by the
        ``(type, details.actor, details.issue_date -1)`` index. Returns a
        ``ProductQuery``.
        """
        match = {"type": settings.CATALOG_ACTOR_TYPE, "details.actor": str(actor)}
        return ProductQuery(self, match, SORTS["newest"])


def window_key(match, start, stop):
    """The key (str) of the list of the products matching ``match``, newest first,
    ``[start:stop]``, whose window ``NewestWindow.objects`` keeps."""
    return hashlib.sha1(repr((match, int(start), int(stop))).encode(), usedforsecurity=False).hexdigest()


def _without_issue_date(document, projection):
    """``document`` without the issue date ``_newest_window`` added, when ``projection`` (a
    ``$project`` of inclusions) does not ask for it."""
    if "details.issue_date" in projection or "details" in projection:
        return document
    details = document.pop("details", None) or {}
    details.pop("issue_date", None)
    if details:
        document["details"] = details
    return document
