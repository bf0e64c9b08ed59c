"""``SalesReportManager`` (``MonthlyStat.reports``, ``DailyStat.reports``): sales reports written
with the operators of the Russian article on MongoDB's aggregation operators (``docs/sources.md``).

``$let`` and the date operators over a rollup level's own collection (never the raw
events); the catalog's reports are ``Product.reports`` (``catalog/products/report_manager.py``).
"""

from django.db import models
from pymongo import ASCENDING

from core import clock
from core.mongo.collections import MongoCollectionMixin

from ..pipelines import period_filter


WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


class SalesReportManager(MongoCollectionMixin, models.Manager):
    """Sales reports over the rollup level of its model (``Bucket.reports``): monthly totals with
    tax on ``MonthlyStat``, sales by weekday on ``DailyStat``."""

    def totals_with_tax(self, start, end, tax_percent):
        """Store revenue per bucket of this level in ``[start, end)`` with tax added (``$let``):
        monthly on ``MonthlyStat.reports``.

        ``start``, ``end``: aware UTC month starts, or None for an open bound.
        ``tax_percent``: an int 0..100. Returns ``[{d, net, tax, gross}, ...]``
        in cents (tax rounded to the cent), oldest first. Raises ValueError
        for a rate outside 0..100.
        """
        tax_percent = int(tax_percent)
        if not 0 <= tax_percent <= 100:
            raise ValueError("The tax rate must be between 0 and 100 percent.")
        tax = {"$round": [{"$divide": [{"$multiply": ["$total", tax_percent]}, 100]}, 0]}
        cursor = self.collection.aggregate([
            {"$match": {"k": "store", **period_filter(start, end)}},
            {"$project": {"_id": 0, "d": 1, "net": "$total", "tax": tax,
                          "gross": {"$let": {"vars": {"net": "$total", "tax": tax},
                                             "in": {"$add": ["$$net", "$$tax"]}}}}},
            {"$sort": {"d": ASCENDING}},
        ])
        return [{"d": clock.aware(r["d"]), "net": int(r["net"]), "tax": int(r["tax"]),
                 "gross": int(r["gross"])} for r in cursor]

    def sales_by_weekday(self, start=None, end=None):
        """Store revenue and sales per weekday over ``[start, end)`` (``$dayOfWeek`` of each
        bucket's day: on ``DailyStat.reports``). Returns 7 rows ``{weekday, total, count}``,
        Monday first."""
        cursor = self.collection.aggregate([
            {"$match": {"k": "store", **period_filter(start, end)}},
            {"$group": {"_id": {"$dayOfWeek": "$d"}, "total": {"$sum": "$total"},
                        "count": {"$sum": "$count"}}},
        ])
        found = {d["_id"]: d for d in cursor}
        order = [2, 3, 4, 5, 6, 7, 1]  # $dayOfWeek: 1 = Sunday
        return [{"weekday": WEEKDAYS[n - 1], "total": found.get(n, {}).get("total", 0),
                 "count": found.get(n, {}).get("count", 0)} for n in order]
