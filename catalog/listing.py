"""What a product listing is made of: its sort orders, the fields a product card shows,
the stock joined into the same read, and the filter of a category page.

Used by ``ProductManager`` (``catalog/managers/products.py``), the
paginator adapters (``catalog/paginators.py``), search
(``catalog/search.py``) and the storefront views (the ``?sort=`` choices).
"""

from pymongo import ASCENDING, DESCENDING

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

#: What a product card shows: not the track lists.
CARD_FIELDS = {"sku": 1, "type": 1, "title": 1, "pricing": 1, "details.artist": 1,
               "details.genre": 1, "details.issue_date": 1, "details._label": 1, "image": 1}
#: The same as model fields (``ProductManager.card_from_document``).
CARD_FIELD_NAMES = {"sku", "type", "title", "pricing", "details", "image"}

# Availability joined into the same read (issue 12): the SKU's inventory
# document (its ``_id`` is the SKU) by a plain localField/foreignField
# $lookup, reduced to its ``qty`` as ``available`` (missing: no stock record).
# Not ``"$stock.qty"`` (a path through an array of subdocuments, which
# SecantusDB evaluates to missing) but a $map; not a $lookup with ``let``.
AVAILABILITY_STAGES = [
    {"$lookup": {"from": "inventory", "localField": "sku", "foreignField": "_id", "as": "stock"}},
    {"$addFields": {"available": {"$arrayElemAt": [
        {"$map": {"input": "$stock", "in": "$$this.qty"}}, 0]}}},
    {"$project": {"stock": 0}},
]


def category_match(category_ids, min_cents=None, max_cents=None):
    """The filter of a category page: products listed in any of ``category_ids`` with a
    retail price within ``[min_cents, max_cents]`` (integer cents; either bound None: no
    bound). Returns a MongoDB filter (a dict)."""
    match = {"categories": {"$in": list(category_ids)}}
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
    counts as 1) of ``per_page`` products."""
    start = (max(page, 1) - 1) * per_page
    return start, start + per_page
