"""The rollups' aggregation pipelines and the expressions they share (seed 001).

``hourly_pipeline`` recomputes hourly buckets from the raw ``events``;
``level_pipeline`` recomputes a level's buckets from the level below. Both
*replace* buckets (``$merge`` on ``_id``). ``RollupManager`` runs them;
``RollupManager`` and ``ReportManager`` build their reads from ``MEASURES``,
``each``, ``period_expression`` and ``period_filter``.
"""

import re

DAY_MS = 24 * 60 * 60 * 1000

#: The ``ref`` prefix of the sales written by the shop's checkout (``EventManager.record_order``);
#: any other ``ref`` marks a sale imported by ``import_sales`` (``load_sales``).
ORDER_REF_PREFIX = "order:"


def each(array, field):
    """``array``'s elements' ``field``, as an expression: ``"$array.field"`` written with ``$map``.

    SecantusDB (the local server) evaluates a field path through an array of
    subdocuments in an expression to missing; MongoDB gives the same list either way.
    """
    return {"$map": {"input": array, "in": f"$$this.{field}"}}


def in_ranges(field, ranges):
    """The filter matching ``field`` in any of the ``(start, end)`` ranges (``start <= field < end``)."""
    clauses = [{field: {"$gte": start, "$lt": end}} for start, end in ranges]
    return clauses[0] if len(clauses) == 1 else {"$or": clauses}


def period_expression(unit, field):
    """The aggregation expression of the ``unit`` period start of the date ``field``.

    Weeks use ``$dayOfWeek`` arithmetic (1 = Sunday ... 7 = Saturday: back
    ``(dayOfWeek + 5) % 7`` days to Monday) rather than ``$dateTrunc``'s
    ``startOfWeek``, so that the pipeline needs only the most common operators.
    """
    if unit == "week":
        day = {"$dateTrunc": {"date": field, "unit": "day"}}
        back = {"$mod": [{"$add": [{"$dayOfWeek": field}, 5]}, 7]}
        return {"$subtract": [day, {"$multiply": [back, DAY_MS]}]}
    return {"$dateTrunc": {"date": field, "unit": unit}}


#: The measures every bucket sums. ``live_count``: the sale lines the shop recorded itself (an
#: order line, or an event without ``ref``), as opposed to history imported by ``import_sales``
#: (``load_sales``), which has no views or add-to-cart events behind it; the funnel counts only these.
MEASURES = ("total", "count", "units", "views", "carts", "live_count")
_IS_SALE = {"$eq": ["$type", "sale"]}
# An anchored $regexMatch (MongoDB 4.2) on the event's ref.
_IS_LIVE = {"$regexMatch": {"input": {"$ifNull": ["$ref", ORDER_REF_PREFIX]},
                            "regex": "^" + re.escape(ORDER_REF_PREFIX)}}


def _bucket_stages(collection):
    """The stages that shape grouped ``{_id: {k, d}, kind, ref, measures}`` into buckets and
    replace them in ``collection`` (``$merge`` on the bucket's ``_id``)."""
    return [
        {"$project": {
            "_id": {"$concat": [
                "$_id.k", "|", {"$dateToString": {"format": "%Y-%m-%dT%H:%M:%SZ", "date": "$_id.d"}},
            ]},
            "k": "$_id.k",
            "d": "$_id.d",
            "kind": 1,
            "ref": 1,
            **{m: 1 for m in MEASURES},
            "mean": {"$cond": [{"$gt": ["$count", 0]}, {"$divide": ["$total", "$count"]}, 0]},
        }},
        {"$merge": {"into": collection, "on": "_id", "whenMatched": "replace",
                    "whenNotMatched": "insert"}},
    ]


def hourly_pipeline(ranges, collection="stats.hourly"):
    """events -> ``collection``: recompute every hourly bucket of the hours in ``ranges``.

    Per (SKU, hour) first, then each group fans out to its keys: the store
    (``store``), the SKU (``sku:<SKU>``), and each category the product is
    listed in plus every ancestor of those (``category:<id>``, from the
    categories' stored ``ancestors``; a category is counted once per sale
    even when the product is listed under it twice).
    """
    found_categories = {"$map": {"input": "$categories", "as": "c", "in": "$$c._id"}}
    their_ancestors = {"$reduce": {
        "input": "$categories", "initialValue": [],
        "in": {"$concatArrays": ["$$value", {"$map": {
            "input": {"$ifNull": ["$$this.ancestors", []]}, "as": "a", "in": "$$a._id"}}]},
    }}
    return [
        {"$match": in_ranges("ts", ranges)},
        {"$group": {
            "_id": {"sku": "$sku", "d": period_expression("hour", "$ts")},
            "total": {"$sum": {"$cond": [_IS_SALE, "$amount", 0]}},
            "count": {"$sum": {"$cond": [_IS_SALE, 1, 0]}},
            "units": {"$sum": {"$cond": [_IS_SALE, "$qty", 0]}},
            "views": {"$sum": {"$cond": [{"$eq": ["$type", "view"]}, 1, 0]}},
            "carts": {"$sum": {"$cond": [{"$eq": ["$type", "cart"]}, 1, 0]}},
            "live_count": {"$sum": {"$cond": [{"$and": [_IS_SALE, _IS_LIVE]}, 1, 0]}},
        }},
        {"$lookup": {"from": "products", "localField": "_id.sku", "foreignField": "sku",
                     "as": "product"}},
        {"$addFields": {"category_ids": {
            "$ifNull": [{"$arrayElemAt": [each("$product", "categories"), 0]}, []]}}},
        {"$lookup": {"from": "categories", "localField": "category_ids", "foreignField": "_id",
                     "as": "categories"}},
        {"$project": {
            "_id": 0,
            "d": "$_id.d",
            **{m: 1 for m in MEASURES},
            "keys": {"$concatArrays": [
                [{"k": "store", "kind": "store", "ref": None}],
                [{"k": {"$concat": ["sku:", "$_id.sku"]}, "kind": "sku", "ref": "$_id.sku"}],
                {"$map": {
                    "input": {"$setUnion": [found_categories, their_ancestors]}, "as": "c",
                    "in": {"k": {"$concat": ["category:", {"$toString": "$$c"}]},
                           "kind": "category", "ref": "$$c"},
                }},
            ]},
        }},
        {"$unwind": "$keys"},
        {"$group": {
            "_id": {"k": "$keys.k", "d": "$d"},
            "kind": {"$first": "$keys.kind"},
            "ref": {"$first": "$keys.ref"},
            **{m: {"$sum": f"${m}"} for m in MEASURES},
        }},
        *_bucket_stages(collection),
    ]


def level_pipeline(level, ranges):
    """``level.source`` -> ``level``: recompute every bucket of the periods in ``ranges``
    by summing the source level's buckets of each key (mean = total / count)."""
    return [
        {"$match": in_ranges("d", ranges)},
        {"$group": {
            "_id": {"k": "$k", "d": period_expression(level.unit, "$d")},
            "kind": {"$first": "$kind"},
            "ref": {"$first": "$ref"},
            **{m: {"$sum": f"${m}"} for m in MEASURES},
        }},
        *_bucket_stages(level.collection),
    ]


def period_filter(start, end):
    """The filter ``{"d": {"$gte": start, "$lt": end}}`` for the bounds given (None: open)."""
    bounds = {}
    if start is not None:
        bounds["$gte"] = start
    if end is not None:
        bounds["$lt"] = end
    return {"d": bounds} if bounds else {}
