"""The catalog's indexes beyond those its models declare (slug and SKU unique, the parent
foreign key): each ``(keys, options)`` as pymongo's ``create_index`` takes them."""

from django.db import connections
from pymongo import ASCENDING, DESCENDING

# Indexes the seeds prescribe, created by the catalog's migration
# (``create_catalog_indexes``). Those Django can declare (slug and SKU
# unique, the parent foreign key) come from the models themselves.
CATEGORY_INDEXES = [
    ([("ancestors._id", ASCENDING)], {"name": "ancestors_id"}),
]
PRODUCT_INDEXES = [
    ([("categories", ASCENDING)], {"name": "categories"}),
    (
        [("type", ASCENDING), ("details.genre", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_genre_issue_date"},
    ),
    ([("pricing.pct_savings", ASCENDING)], {"name": "pct_savings"}),
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
    ([("details.artist", ASCENDING), ("details.issue_date", DESCENDING)], {"name": "artist_issue_date"}),
    # Search-as-you-type: an anchored prefix pattern over the lower-cased title.
    ([("title_lower", ASCENDING), ("_id", ASCENDING)], {"name": "title_lower"}),
    # The storefront search: a multikey index over the products' words (catalog/keywords.py).
    ([("keywords", ASCENDING)], {"name": "keywords"}),
]


def create_catalog_indexes(using="default"):
    """Create the seed indexes above on ``categories`` and ``products`` (idempotent).

    Returns the list of index names. Called by ``catalog``'s migration.
    """
    connection = connections[using]
    names = []
    for table, indexes in (("categories", CATEGORY_INDEXES), ("products", PRODUCT_INDEXES)):
        collection = connection.get_collection(table)
        for keys, options in indexes:
            names.append(collection.create_index(keys, **options))
    return names
