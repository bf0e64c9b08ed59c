"""The catalog's indexes beyond those its models declare (slug and SKU unique, the parent
foreign key): ``INDEXES``, each ``(keys, options)`` as pymongo's ``create_index`` takes
them, collected by ``core.mongo.indexes.registry``.

The catalog's migrations create them (each with its own literal copy of the
specs of its day); ``ensure_indexes`` checks them. A new index here needs a
migration too (``tests/shop/test_ensure_indexes.py`` fails until migrate makes it).
"""

from pymongo import ASCENDING, DESCENDING
from catalog.listings.facets import facet_fields

# Indexes the sources prescribe. Those Django can declare (slug and SKU
# unique, the parent foreign key) come from the models themselves.
_CATEGORY_INDEXES = [
    ([("ancestors._id", ASCENDING)], {"name": "ancestors_id"}),
]
_PRODUCT_INDEXES = [
    ([("categories", ASCENDING)], {"name": "categories"}),
    # A category page: the products listed in a category or below it (one equality on
    # ``listed_in``), newest first.
    (
        [("listed_in", ASCENDING), ("details.issue_date", DESCENDING), ("_id", ASCENDING)],
        {"name": "listed_in_issue_date"},
    ),
    # A category page sorted by price or title reads the chunks of the order its rows lie in
    # (``OrderCount.objects``): a range of the sorted field among its products, migration 0018.
    ([("listed_in", ASCENDING), ("pricing.retail", ASCENDING), ("_id", ASCENDING)], {"name": "listed_in_retail"}),
    ([("listed_in", ASCENDING), ("title", ASCENDING), ("_id", ASCENDING)], {"name": "listed_in_title"}),
    # A category page narrowed by a variant attribute (``?format=Vinyl``): its categories paired
    # with its variants' options, one array (``catalog.products.variants.variant_in``), newest
    # first, migration 0021.
    (
        [("variant_in", ASCENDING), ("details.issue_date", DESCENDING), ("_id", ASCENDING)],
        {"name": "variant_in_issue_date"},
    ),
    (
        [("type", ASCENDING), ("details.genre", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_genre_issue_date"},
    ),
    ([("pricing.pct_savings", ASCENDING)], {"name": "pct_savings"}),
    # The deals' counts per saving and issue decade (``ListingManager.savings_counts``),
    # migration 0014.
    ([("pricing.pct_savings", ASCENDING), ("details.issue_date", ASCENDING)], {"name": "pct_savings_issue_date"}),
    # A deals page's products of one saving from a window of ids (``ListingManager.deals_page``),
    # migration 0018.
    ([("pricing.pct_savings", ASCENDING), ("_id", ASCENDING)], {"name": "pct_savings_id"}),
    (
        [("type", ASCENDING), ("details.actor", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_actor_issue_date"},
    ),
    (
        [("type", ASCENDING), ("details.issue_date", DESCENDING), ("title", ASCENDING)],
        {"name": "type_issue_date_title"},
    ),
    # Category pages sort by these: newest, price, title.
    ([("details.issue_date", DESCENDING)], {"name": "issue_date"}),
    ([("pricing.retail", ASCENDING)], {"name": "retail_price"}),
    # An artist's products, newest first. Only albums and TV seasons have an
    # artist, so the query names no type (SecantusDB uses no index for a type $in).
    # (docs/local-server-differences.md: local-server difference 17)
    ([("details.artist", ASCENDING), ("details.issue_date", DESCENDING)], {"name": "artist_issue_date"}),
    # Search-as-you-type: an anchored prefix pattern over the lower-cased title.
    ([("title_lower", ASCENDING), ("_id", ASCENDING)], {"name": "title_lower"}),
    # The storefront search: a multikey index over the products' words (catalog/products/keywords.py).
    ([("keywords", ASCENDING)], {"name": "keywords"}),
    # The product of any SKU, its own or a variant's (catalog/products/variants.py), one equality; unique
    # across products and variants (multikey: MongoDB keeps a value once across documents).
    ([("skus", ASCENDING)], {"name": "skus", "unique": True}),
]

INDEXES = {"categories": _CATEGORY_INDEXES, "products": _PRODUCT_INDEXES}


def facet_indexes():
    """The indexes the listings' facets declare, as ``INDEXES`` (``{"products": [(keys,
    options), ...]}``): for the product type and each facet attribute of one value per
    product, ``listed_in`` then its field (``facet_<code>``), which serves a category page
    narrowed by one of its values (``catalog.listings.facets.refine``); for a facet attribute that
    holds a list (``details.genre``), its field alone (MongoDB cannot index two arrays of
    a document together, and ``listed_in`` is one). They follow the product types (data),
    so no migration makes them: ``ensure_indexes`` creates them (reads the types). With
    them, ``{"inventory": [qty]}``: the "in stock" facet reads the sold-out SKUs
    (``FacetManager.sold_out_skus``: ``{qty: 0}``) on every request that chooses it,
    which without this index reads the whole inventory."""
    specs = []
    for facet in facet_fields():
        keys = [(facet["field"], ASCENDING)] if facet["many"] else \
            [("listed_in", ASCENDING), (facet["field"], ASCENDING)]
        specs.append((keys, {"name": f"facet_{facet['code']}"}))
    return {"products": specs, "inventory": [([("qty", ASCENDING)], {"name": "qty"})]}


# The sharding plan (core.mongo.sharding, docs/sharding.md): categories stay unsharded (small,
# and their unique slug index would block it); products on {sku: 1}, not the Product Catalog
# use case's (type, details.genre, sku): details.genre is an array, and a shard key's index
# cannot be multikey. The unique sku index is the key's own index and stays.
SHARD_KEYS = [("products", {"sku": 1}, True)]
# A unique index must start with the shard key: sharded, ``skus`` is a plain index, and a SKU used
# twice is refused by the product form's check and by its inventory document's ``_id``.
UNIQUE_BEFORE_SHARDING = {"products": ("skus",)}
UNSHARDED = ("categories",)
