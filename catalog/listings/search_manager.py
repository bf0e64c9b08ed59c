"""``Product.search`` (``SearchManager``): the storefront's search ("Product Catalog" use case):
the products holding every word of a shopper's query, and search-as-you-type over title
prefixes. The queries are built in ``catalog/listings/search.py``; the results are listings
read through ``Product.listings``.
"""

from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import words_scope
from catalog.products.keywords import search_words
from catalog.listings.search import DEFAULT_SEARCH_SORT, search_listing, search_stages, suggest_query


class SearchManager(MongoCollectionMixin, models.Manager):
    """``Product.search``: a search's results, its filters and cache scope for its facets,
    and the suggestions of the search box."""

    def search_scope(self, text):
        """The cache scope of a search's facet counts: its words' (``words:<word>``), which a
        write of a product with one of them bumps when its searchable text or faceted values
        change (``catalog/store/writes.py``)."""
        return words_scope(search_words(text))

    def search_stages(self, text):
        """The ``$match`` filters of a search for ``text`` (a list, one per word), or None
        when it holds no word: for its facets (``catalog.listings.facets.facet_panel``)."""
        return search_stages(text)

    def search(self, text, page=1, per_page=24, sort=DEFAULT_SEARCH_SORT, refined=None, variant_options=None):
        """Products that have every word of ``text`` (a shopper's query) among their
        keywords, best match first (``sort="relevance"``) or by a key of ``SEARCH_SORTS``.
        ``refined``: the search's filters narrowed by chosen facets (``search_stages`` then
        ``catalog.listings.facets.facet_panel``), which replace the words' own; its cards then
        show the variant matching ``variant_options`` (``FacetPanel.variant_options``).

        Each product says what matched (``matched``). Returns a
        ``ProductListing`` (one round trip for count and page), or an empty
        ``ProductQuery`` (none) when ``text`` holds no word; KeyError for an
        unknown ``sort``. See ``search.search_listing``; its count and page are read
        through ``Product.listings``.
        """
        return search_listing(self.model.listings, text, page=page, per_page=per_page, sort=sort, refined=refined,
                              variant_options=variant_options)

    def suggest(self, prefix, limit=8):
        """Up to ``limit`` products whose title starts with ``prefix`` (any case), by title.

        The "Product Catalog" use case's index-friendly prefix pattern over ``title_lower`` (see
        ``search.suggest_query``), served by its index. Returns a list of
        Products with ``sku`` and ``title`` only; ``[]`` for a blank prefix.
        One round trip.
        """
        query = suggest_query(prefix)
        if query is None:
            return []
        match, sort = query
        cursor = self.read_collection.find(match, {"sku": 1, "title": 1}).sort(sort).limit(int(limit))
        return [self.from_document(d, {"sku", "title"}) for d in cursor]
