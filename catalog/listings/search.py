"""Product search: the words of a shopper's query matched against ``keywords``, ranked by
where they matched, and search-as-you-type over title prefixes ("Product Catalog" use case's prefix pattern).

``Product.search`` (``catalog/listings/search_manager.py``: ``search``, ``suggest``) calls these
builders; the words come from ``catalog/products/keywords.py``, the ranking from
``catalog/listings/ranking.py``.
"""

from pymongo import ASCENDING

from catalog.store.cache import PRODUCTS, words_scope
from catalog.products.keywords import prefix_range, search_words
from catalog.listings.query import SORTS, ProductListing, ProductQuery, page_hint
from catalog.listings.ranking import RANK_FIELDS, search_ranking
from catalog.listings.search_summary import chosen_bands

#: The longest title prefix that ``suggest`` looks up (characters; the form refuses more).
MAX_SUGGEST_PREFIX = 100

# Search results: best match first (title, then artist, then a track: see
# ``search_ranking``), or by price or date.
SEARCH_SORTS = {
    "relevance": [("rank", ASCENDING), ("title", ASCENDING), ("_id", ASCENDING)],
    "newest": SORTS["newest"], "price": SORTS["price"], "-price": SORTS["-price"],
}
SEARCH_SORT_LABELS = {"relevance": "Best match", "newest": "Newest",
                      "price": "Price: low to high", "-price": "Price: high to low"}
DEFAULT_SEARCH_SORT = "relevance"

#: A search by relevance keeps the order of this many of its results (10 pages of 24); a page
#: past them ranks every match in one aggregation (``RankedSearch``).
RANKED_KEPT = 240

# Suggestions come by title (its search copy), ties by ``_id``.
_SUGGEST_SORT = [("title_lower", ASCENDING), ("_id", ASCENDING)]


def lower_title(title):
    """The form of a title the prefix search matches: case-folded (``"AC/DC"`` -> ``"ac/dc"``)."""
    return (title or "").casefold()


def search_stages(text):
    """The ``$match`` filters of a search for ``text``: ``[{"keywords": word}, ...]``, one per
    word of ``search_words(text)``, or None when it holds no word."""
    words = search_words(text)
    return [{"keywords": word} for word in words] if words else None


def search_listing(manager, text, page=1, per_page=24, sort=DEFAULT_SEARCH_SORT, refined=None,
                   variant_options=None):
    """The products (of ``manager``, ``Product.listings``) that have every word of ``text``
    among their keywords, sorted by ``SEARCH_SORTS[sort]`` (KeyError for another ``sort``).

    ``text`` is split into words (``search_words``): punctuation and
    operators (``.*``, ``$where``, ``{"$ne": 1}``) are never passed on as
    a pattern or an operator; each word is a plain equality on the
    multikey ``keywords`` index. The words are consecutive ``$match``
    stages of one aggregation, which MongoDB merges into one ``$and``
    served by the index; SecantusDB 0.7.0b3 uses an index only for a
    (docs/local-server-differences.md: local-server differences 14 and 12)
    ``$match`` of one top-level condition (an ``$and``, ``$all`` or
    ``$elemMatch`` scans the collection), so the first stage uses the index
    and the others filter what it found. Returns a ``ProductListing``
    (count and page in one aggregation; ``page`` and ``per_page`` say
    which page will be asked for), or an empty ``ProductQuery`` (no round
    trip) when ``text`` holds no word.

    Relevance comes from the product's fields: ``search_ranking``
    ranks a match in the title before one in the artist, then a track,
    then the cast, then the description, and each product gets
    ``matched`` ("track: Inject The Venom").

    ``refined`` (a list of filters: ``search_stages`` narrowed by chosen
    facets, ``catalog.listings.facets.refine``) replaces the words' filters;
    ``variant_options`` (``{code: values}``, the variant attributes chosen) makes each card
    show its matching variant (``catalog.listings.cards.matching_variant``).
    """
    words = search_words(text)
    if not words:
        return ProductQuery(manager, None, [])
    # By relevance, the page's order depends on which products have the words and their
    # searchable text (and SKUs), all bumping ``words:<word>``; its cards on what is shown of
    # its products, read by SKU under their ``product:<sku>`` (two layers: ``by_sku``, so the
    # page is kept from its first request). By price or date on any product's
    # (``catalog/store/cache.py``). Narrowed by facets, on any product's (a price or a genre
    # decides what shows).
    # A choice of price bands only: by relevance from the search's summary too (its parts
    # by price band), as is the search without a choice.
    bands = _chosen_bands(refined, words) if sort == "relevance" else None
    relevance = sort == "relevance" and not refined
    scope = words_scope(words) if relevance else (PRODUCTS,)

    def aggregated():
        return ProductListing(manager, list(refined or search_stages(text)), SEARCH_SORTS[sort],
                              page_hint=page_hint(page, per_page),
                              stages=search_ranking(words), extra_fields=RANK_FIELDS, scope=scope,
                              variant_options=variant_options, by_sku=relevance)

    if relevance or bands:
        return RankedSearch(manager, words, aggregated, variant_options, bands)
    return aggregated()


def _chosen_bands(refined, words):
    """The price bands chosen (``search_summary.chosen_bands``) when ``refined`` (a
    ``facets.Refined``) narrows the search for ``words`` by price bands only, else None."""
    if not refined or getattr(refined, "stages", None) != [{"keywords": word} for word in words]:
        return None
    return chosen_bands(getattr(refined, "filters", ()))


class RankedSearch(ProductQuery):
    """A search by relevance without a choice of facets, or with price ``bands`` chosen: its
    count and the order of its first results (up to ``RANKED_KEPT``) from its summary
    (``Product.search.search_ranked``: kept in the database under its words' versions, else
    one read of what ranks its matches, ranked in the process, with the facet counts it
    counts along), its cards read by SKU under their products' versions. A page past those is
    read as before (``aggregated()``: a ``ProductListing`` ranking every match in one
    aggregation)."""

    def __init__(self, manager, words, aggregated, variant_options=None, bands=None):
        super().__init__(manager, [{"keywords": word} for word in words], SEARCH_SORTS["relevance"],
                         scope=words_scope(words))
        self.words, self.bands = list(words), bands
        self.aggregated = aggregated
        self.variant_options = dict(variant_options or {})
        self._ranked = None
        self._aggregated = None

    def ranked(self):
        """``ListingManager.search_ranked`` of the words (read once)."""
        if self._ranked is None:
            self._ranked = self.manager.model.search.search_ranked(self.words, self.bands)
        return self._ranked

    def count(self):
        if self._total is None:
            self._total = self.ranked()["total"]
        return self._total

    def _read_page(self, start, stop):
        ranked = self.ranked()
        order = ranked["order"]
        if len(order) == ranked["total"] or (stop is not None and stop <= len(order)):
            return self.manager.ranked_cards(order[start:stop], self.variant_options)
        if self._aggregated is None:
            self._aggregated = self.aggregated()
        return self._aggregated[start:stop]


def suggest_query(prefix):
    """``(filter, sort)`` of the products whose title starts with ``prefix`` (any case,
    leading spaces dropped, cut to ``MAX_SUGGEST_PREFIX``), or None for a blank prefix.

    The "Product Catalog" use case's index-friendly prefix pattern over ``title_lower``, written as
    a range (``prefix_range``: SecantusDB uses no index for a ``$regex``).
    """
    prefix = lower_title(str(prefix)).lstrip()[:MAX_SUGGEST_PREFIX]
    if not prefix:
        return None
    return {"title_lower": prefix_range(prefix)}, _SUGGEST_SORT
