"""The product listing: its sort orders, the fields a product card shows, the filter of a
category page, and the queries as sequences for Django's Paginator.

``ProductQuery`` serves the "Product Catalog" use case queries that an index sorts (count and
page: 2 round trips); ``CountedListing`` serves category pages without a
price filter (a kept count, and newest first a window of issue dates);
``ProductListing`` serves price-filtered category pages and search (count
and page in one aggregation). ``len()`` is the count, a slice is one
page. The manager caches both by the catalog's version
(``catalog/store/cache.py``) and reads the page's stock on every request
(``ListingManager.with_availability``): stock is never cached.

Used by ``Product.listings`` (``catalog/listings/manager.py``), search
(``catalog/listings/search.py``) and the storefront views (the ``?sort=`` choices).
"""

from pymongo import ASCENDING, DESCENDING

from catalog.store.cache import savings_scope
from catalog.products.variants import variant_key
from catalog.listings.paginators import clamp_page

#: A category page's orders (``?sort=``): each ends on ``_id`` so that pages never overlap.
SORTS = {
    "newest": [("details.issue_date", DESCENDING), ("_id", ASCENDING)],
    "price": [("pricing.retail", ASCENDING), ("_id", ASCENDING)],
    "-price": [("pricing.retail", DESCENDING), ("_id", ASCENDING)],
    "title": [("title", ASCENDING), ("_id", ASCENDING)],
}
SORT_LABELS = {"newest": "Newest", "price": "Price: low to high", "-price": "Price: high to low",
               "title": "Title"}
DEFAULT_SORT = "newest"
#: A category of more products than this reads its newest-first pages from windows of issue
#: dates, its pages by price or title from its kept order counts (``CountedListing``); a
#: smaller one sorts them all, which costs little.
WINDOWED_FROM = 200

#: What a product card shows: not the track lists; the variants (a few each), whose SKUs' stock
#: the card sums (``ListingManager.with_availability``).
CARD_FIELDS = {"sku": 1, "type": 1, "title": 1, "pricing": 1, "details.artist": 1,
               "details.genre": 1, "details.issue_date": 1, "image": 1, "variants": 1,
               "listed_in": 1}  # listed_in: which automatic offers cover the card (promotions.labels)
#: The same as model fields (``ListingManager.card_from_document``).
CARD_FIELD_NAMES = {"sku", "type", "title", "pricing", "details", "image", "variants", "listed_in"}


def category_match(category_ids, min_cents=None, max_cents=None):
    """The filter of a category page: products listed in any of ``category_ids`` or below
    them, with a retail price within ``[min_cents, max_cents]`` (integer cents; either bound
    None: no bound). Returns a MongoDB filter (a dict).

    A product's ``listed_in`` holds its categories and all their ancestors,
    so one category's whole subtree is one equality, served by the
    ``listed_in_issue_date`` index. (An ``$in`` over the subtree's ids, as
    before, costs SecantusDB 0.7.0b3 far more per id than per product: 1.2 s
    (docs/local-server-differences.md: local-server differences 20 and 22)
    for 56 categories and 560 products, against one equality's cost per
    product.)
    """
    category_ids = list(category_ids)
    match = {"listed_in": category_ids[0] if len(category_ids) == 1 else {"$in": category_ids}}
    bounds = {}
    if min_cents is not None:
        bounds["$gte"] = int(min_cents)
    if max_cents is not None:
        bounds["$lte"] = int(max_cents)
    if bounds:
        match["pricing.retail"] = bounds
    return match


def page_hint(page, per_page):
    """``(start, stop)``: the slice Django's Paginator asks for page ``page`` (from 1; less
    counts as 1, more than ``paginators.MAX_PAGE`` as that, so the ``$skip`` always fits
    in MongoDB's 64-bit integers) of ``per_page`` products."""
    start = (clamp_page(page) - 1) * per_page
    return start, start + per_page


class ProductQuery:
    """A filter and a sort over products, as a sequence for Django's Paginator.

    ``count()`` is one ``count_documents`` and each page one aggregation
    (match, sort, skip, limit), both on the read preference's members and
    cached under its ``scope`` (``catalog/store/cache.py``); the page's stock is one more read, on
    every request. A
    ``match`` of None is a query that matches nothing (no round trip).
    Products come with the card fields and ``available``.
    """

    def __init__(self, manager, match, sort, projection=None, scope=("products",), shown=None):
        self.manager = manager
        # ``shown(documents)``: the further scopes a page depends on (``cache.cached``).
        self.shown = shown
        self.match = match
        self.sort = sort
        self.projection = projection or CARD_FIELDS
        # What its cached reads are keyed by (``catalog/store/cache.py``): its categories' versions
        # for a category listing, ``products`` for a listing across categories.
        self.scope = tuple(scope)
        self._total = None
        self._page = None

    def count(self):
        """How many products match (one ``count_documents``, then cached)."""
        if self._total is None:
            self._total = 0 if self.match is None else self.manager.count_matching(self.match, self.scope)
        return self._total

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop
        if self.match is None or (stop is not None and stop <= start):
            return []
        if not self._has_read(start, stop):
            self._page = (start, stop, self._read_page(start, stop))
        first, _last, items = self._page
        return items[start - first:None if stop is None else stop - first]

    def _has_read(self, start, stop):
        """Whether the products of ``[start:stop]`` were read already (Paginator trims the
        last page to the count, a slice within the page read)."""
        if self._page is None or start < self._page[0]:
            return False
        first, last, items = self._page
        reached_the_end = last is None or len(items) < last - first
        return reached_the_end or (stop is not None and stop <= last)

    def _read_page(self, start, stop):
        """The products of ``[start:stop]`` (``stop`` None: to the end) with their
        availability: one aggregation (cached) and one read of their stock."""
        pipeline = [{"$match": self.match}]
        if self.sort:
            pipeline.append({"$sort": dict(self.sort)})
        pipeline.append({"$skip": start})
        if stop is not None:
            pipeline.append({"$limit": max(stop - start, 1)})
        pipeline.append({"$project": self.projection})
        return self.manager.cards(pipeline, {key.split(".")[0] for key in self.projection}, self.scope,
                                  self.shown)

    def explain(self):
        """The server's ``explain`` of the first page's find (a dict)."""
        return self.manager.explain_find(self.match, self.projection, self.sort)


class ProductListing(ProductQuery):
    """A ``ProductQuery`` whose count and page come from one aggregation.

    A ``$facet`` returns the total and the page together, so a paginated
    category page costs one round trip for its products (where a plain
    ``ProductQuery`` costs two). ``match`` is a filter, or a list of filters
    applied one after the other (consecutive ``$match`` stages; see
    ``catalog/listings/search.py``). ``page_hint`` is the ``(start, stop)`` that
    Paginator will ask for; ``count()`` reads it along. Another slice costs
    one more aggregation. Sorting happens after the match, in memory: right
    for a category page's few hundred products, while the Product Catalog queries that
    an index sorts use a ``ProductQuery``. ``by_sku`` (a search by relevance): the
    aggregation reads the page's order only (SKUs and ``extra_fields``), cached under
    ``scope``, and the cards are read by SKU under ``product:<sku>`` of each, two layers as a
    category page's (``ListingManager.counted_cards``). ``variant_options`` (``{code: values}``): the
    variant attributes its facets chose, whose matching variant each card shows
    (``catalog.listings.cards.matching_variant``).
    """

    def __init__(self, manager, match, sort, page_hint=(0, 24), stages=(), extra_fields=None,
                 scope=("products",), shown=None, variant_options=None, by_sku=False):
        super().__init__(manager, match, sort, scope=scope, shown=shown)
        self.variant_options = dict(variant_options or {})
        self.page_hint = page_hint
        self.stages = list(stages)  # run after the $match (e.g. ``search_ranking``)
        # ``by_sku``: the aggregation keeps only the page's order (its SKUs and ``extra_fields``,
        # under ``scope``); the cards are read by SKU under their products' versions
        # (``ListingManager.counted_cards``).
        self.by_sku = by_sku
        self.projection = {**({"sku": 1} if by_sku else self.projection), **(extra_fields or {})}

    def count(self):
        if self._total is None:
            self[slice(*self.page_hint)]
        return self._total

    def _read_page(self, start, stop):
        window = [{"$sort": dict(self.sort)}, {"$skip": start}]
        if stop is not None:
            window.append({"$limit": max(stop - start, 1)})
        # Only the page's products are cut to what a card shows. (Projecting every
        # match before the $facet cost SecantusDB twice the time of the whole
        # listing read: 40 ms against 22 for the Rock page.)
        window.append({"$project": self.projection})
        matches = self.match if isinstance(self.match, list) else [self.match]
        pipeline = [
            *({"$match": match} for match in matches),
            *self.stages,
            {"$facet": {"total": [{"$count": "n"}], "items": window}},
        ]
        self._total, cards = self.manager.counted_cards(pipeline, self.scope, self.shown, self.variant_options,
                                                        by_sku=self.by_sku)
        return cards


class CountedListing(ProductQuery):
    """A category page without a price filter: its count known, its page read alone.

    ``total`` is the category's kept count (``ListingCount.objects.listed``),
    so the count matches no product. Its page is read in two layers, its
    order (``order``: its scope, ``shown`` and ``family``, ``ListingManager.order_scope``)
    and its cards (``ListingManager.ordered_cards``), so that an edit that
    does not move products across the page re-reads its cards and not the
    sort. Newest first (``newest_first``), a page of a category of more than
    ``WINDOWED_FROM`` products that ends before its last product takes its
    order from a window of issue dates (``ListingManager.newest_page``),
    which examines about the page's products rather than the category's; sorted
    by price or title, such a category's page reads only the chunks of the order
    that hold its rows, found from its kept order counts
    (``ListingManager.kept_order``, ``OrderCount.objects``). Any other page's
    order is one aggregation (match, sort, skip, limit: the sort over every
    match, as ``ProductQuery``).
    """

    def __init__(self, manager, match, sort, total, newest_first=False, scope=("products",), order=((), None, None)):
        super().__init__(manager, match, sort, scope=scope)
        self._total = total
        self.newest_first = newest_first
        self.order = order

    def _read_page(self, start, stop):
        if self.newest_first and stop is not None and WINDOWED_FROM < self._total and stop < self._total:
            return self.manager.newest_page(self.match, start, stop, self.scope, order=self.order)
        return self.manager.sorted_page(self.match, self.sort, start, stop, self.scope, self.order,
                                        kept=WINDOWED_FROM < self._total)


class FacetedListing(CountedListing):
    """A category page narrowed by facets, newest first: its count known (``total``: the facet
    counts' total, kept: ``FacetManager.chosen_counts``), its page read alone in two layers
    (``ListingManager.ordered_cards``, the order under ``faceted_order_scope``).

    ``refined`` is ``facet_panel``'s ``Refined``: the category's filter (its ``stages``) and
    the choice's (``filters``). A page of a listing of more than ``WINDOWED_FROM`` products
    that ends before its last takes its order from windows of issue dates on the category's
    index, each narrowed by the choice (``ListingManager.newest_page``), so it examines about
    the products issued since the page's oldest rather than every match; any other page
    sorts every match (``refined``, the first chosen facet's index serving it where it has
    one: an artist's few products), as ``ProductListing`` did. With one value of a variant
    attribute chosen, either reads only the products holding it (``by_variant``: on
    ``variant_in``). Its cards are keyed by the products shown (``scope``: the category's).
    """

    def __init__(self, manager, refined, total, scope=("products",), order=((), None, None), variant_options=None):
        super().__init__(manager, refined.stages[0], SORTS[DEFAULT_SORT], total, newest_first=True, scope=scope,
                         order=order)
        self.refined, self.filters = list(refined), list(refined.filters)
        self.variant_options = dict(variant_options or {})
        self.by_variant = by_variant(self.match, self.filters)

    def _read_page(self, start, stop):
        match, filters = self.by_variant or (self.match, self.filters)
        if stop is not None and WINDOWED_FROM < self._total and stop < self._total:
            return self.manager.newest_page(match, start, stop, self.scope, order=self.order,
                                            narrowed=filters, variant_options=self.variant_options)
        if self.by_variant:
            return self.manager.sorted_page(match, self.sort, start, stop, self.scope, self.order,
                                            narrowed=filters, variant_options=self.variant_options)
        return self.manager.sorted_page(self.refined[0], self.sort, start, stop, self.scope, self.order,
                                        narrowed=self.refined[1:], variant_options=self.variant_options)


def by_variant(match, filters):
    """``(match, filters)`` of a category page (``match``: ``{listed_in: id}``) narrowed by one
    value of a variant attribute among ``filters`` (``{"variants.options.<code>": {"$in":
    [value]}}``): the same products as ``{listed_in: id}`` and that filter, named as one
    equality on ``variant_in`` (``"<id>:<code>:<value>"``, ``catalog.products.variants``) with
    the other filters after it, so that the ``variant_in_issue_date`` index serves the page's
    windows and its sort reads only the products holding the value, not every product of the
    category (MongoDB cannot index ``listed_in`` and the options together: two arrays). None
    for any other page, and for several values (local-server difference 17 in
    docs/local-server-differences.md: SecantusDB 0.7.0b3 uses no index for an ``$in`` on the
    first field of a compound index)."""
    if set(match) != {"listed_in"} or isinstance(match["listed_in"], dict):
        return None
    for index, condition in enumerate(filters):
        if len(condition) != 1:
            continue
        (name, test), = condition.items()
        if name.startswith("variants.options.") and isinstance(test, dict) \
                and set(test) == {"$in"} and len(test["$in"]) == 1 and isinstance(test["$in"][0], str):
            code = name[len("variants.options."):]
            return ({"variant_in": variant_key(match["listed_in"], code, test["$in"][0])},
                    filters[:index] + filters[index + 1:])
    return None


class DealsListing(ProductQuery):
    """Products saving more than ``threshold`` percent, biggest saving first, then by ``_id``
    (the "Product Catalog" use case's "sorted by percentage discount descending").

    Read per saving rather than over every deal, which on the local server
    would read and sort them all (4 s for 97,000 of 100,000 products): the
    count is the sum of the products at each saving above the threshold
    (``ListingManager.savings_kept``: kept in the database per saving,
    ``SavingsCount.objects``, and cached under each one's ``savings:<pct>``,
    so an edit re-counts the two savings it changes), and a page reads only
    the savings it spans, each from a window of ids that holds about its
    products (``ListingManager.deals_page``, on the ``pct_savings_id`` index),
    its order (SKUs) cached under the savings from its lowest up; its cards are
    read by SKU under their products' versions (two layers, as a search's).
    """

    def __init__(self, manager, threshold, most):
        self.threshold, self.most = int(threshold), int(most)
        super().__init__(manager, {"pricing.pct_savings": {"$gt": self.threshold}},
                         [("pricing.pct_savings", DESCENDING), ("_id", ASCENDING)], scope=())
        self._kept = None

    def kept(self):
        """``{pct: {"listed", "first", "last"}}`` of every saving above the threshold (kept and
        cached, see the class)."""
        if self._kept is None:
            self._kept = self.manager.savings_kept(range(self.threshold + 1, self.most + 1))
        return self._kept

    def per_saving(self):
        """``{pct: products}`` of every saving above the threshold (cached, see the class)."""
        return {pct: kept["listed"] for pct, kept in self.kept().items()}

    def count(self):
        if self._total is None:
            self._total = sum(self.per_saving().values())
        return self._total

    def segments(self, start, stop):
        """``[(pct, skip, take)]``: the savings holding the products ``[start:stop]`` (``stop``
        None: to the end) in the order of the listing, biggest first, with how many products
        of each come before the page and how many the page takes (None: all the rest);
        ``[]`` when ``start`` is past the last deal."""
        above, segments, per_saving = 0, [], self.per_saving()
        for pct in sorted(per_saving, reverse=True):
            products = per_saving[pct]
            if not products or above + products <= start:
                above += products
                continue
            skip = max(start - above, 0)
            segments.append((pct, skip, None if stop is None else min(stop - above - skip, products - skip)))
            above += products
            if stop is not None and above >= stop:
                break
        return segments

    def _read_page(self, start, stop):
        segments = self.segments(start, stop)
        if not segments:
            return []
        lowest = segments[-1][0] if stop is not None else self.threshold + 1
        # The page's order (its SKUs) under the savings it spans and those above; its cards read
        # by SKU under their products' versions: kept from its first visit.
        return self.manager.deals_page(segments, self.kept(), savings_scope(range(lowest, self.most + 1)),
                                       {key.split(".")[0] for key in self.projection})
