"""The expressions the analytics' aggregations share ("Hierarchical Aggregation" use case).

``RollupManager`` and ``SalesReportManager`` build their reads from ``MEASURES``,
``each``, ``period_expression`` and ``period_filter``. The rollups themselves
group in the process and write with bulk upserts (``analytics/bucketing.py``:
on the local server that is one pass over the events and one write per
bucket, where the ``$group`` + ``$lookup`` + ``$merge`` pipelines that lived
here examined each event twice and wrote a bucket in about 3 ms).
"""

DAY_MS = 24 * 60 * 60 * 1000

#: The ``ref`` prefix of the sales written by the shop's checkout (``EventManager.record_order``);
#: any other ``ref`` marks a sale imported by ``import_sales`` (``load_sales``).
ORDER_REF_PREFIX = "order:"


def each(array, field):
    """``array``'s elements' ``field``, as an expression: ``"$array.field"`` written with ``$map``.

    SecantusDB (the local server) evaluates a field path through an array of
    (docs/local-server-differences.md: local-server difference 2)
    subdocuments in an expression to missing; MongoDB gives the same list either way.
    """
    return {"$map": {"input": array, "in": f"$$this.{field}"}}


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
#: ``refunds``: cents given back on orders (refund events, ``EventManager.record_refund``), counted in
#: the period of the refund; net revenue is ``total - refunds``.
MEASURES = ("total", "count", "units", "views", "carts", "live_count", "refunds")


def period_filter(start, end):
    """The filter ``{"d": {"$gte": start, "$lt": end}}`` for the bounds given (None: open)."""
    bounds = {}
    if start is not None:
        bounds["$gte"] = start
    if end is not None:
        bounds["$lt"] = end
    return {"d": bounds} if bounds else {}
