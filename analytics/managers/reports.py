"""``ReportManager`` (``Event.reports``): reports written with the Russian article on MongoDB's aggregation operators.

``$cond``, ``$ifNull``, ``$let``, the date operators and ``$cmp``, over the
products and the rollups (not the raw events).
"""

from django.db import models
from pymongo import ASCENDING

from core import clock
from core.mongo.collections import MongoCollectionMixin

from ..pipelines import period_filter


def compare(a, b):
    """``{"$cmp": [a, b]}``: -1, 0 or 1 (Russian article on MongoDB's aggregation operators)."""
    return {"$cmp": [a, b]}


#: Price bands of the price-band report: (upper bound in cents, exclusive, or None; label).
PRICE_BANDS = [(500, "under $5"), (1000, "$5 to $9.99"), (2000, "$10 to $19.99"), (None, "$20 and over")]
WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


class ReportManager(MongoCollectionMixin, models.Manager):
    """Reports with the Russian article on MongoDB's aggregation operators, over the products and the rollups (not the raw events)."""

    def price_bands(self):
        """Products per retail price band (nested ``$cond``), and how many sell below list price
        (``$cmp`` of retail and list). Returns ``[{band, products, discounted}, ...]`` in band
        order, every band present."""
        band = len(PRICE_BANDS) - 1
        for number in range(len(PRICE_BANDS) - 2, -1, -1):
            bound = PRICE_BANDS[number][0]
            band = {"$cond": [{"$lt": ["$pricing.retail", bound]}, number, band]}
        cursor = self.get_collection("products").aggregate([
            {"$project": {"band": band,
                          "below_list": compare("$pricing.retail", "$pricing.list")}},
            {"$group": {"_id": "$band", "products": {"$sum": 1},
                        "discounted": {"$sum": {"$cond": [{"$eq": ["$below_list", -1]}, 1, 0]}}}},
        ])
        found = {d["_id"]: d for d in cursor}
        return [
            {"band": label, "products": found.get(n, {}).get("products", 0),
             "discounted": found.get(n, {}).get("discounted", 0)}
            for n, (_bound, label) in enumerate(PRICE_BANDS)
        ]

    def missing_descriptions(self, limit=50):
        """Products with no description (missing, null or empty, via ``$ifNull``), by SKU.

        Returns ``(count, [{sku, title}, ...])``: the first ``limit`` of them.
        """
        cursor = self.get_collection("products").aggregate([
            {"$project": {"_id": 0, "sku": 1, "title": 1,
                          "description": {"$ifNull": ["$description", ""]}}},
            {"$match": {"description": ""}},
            {"$sort": {"sku": ASCENDING}},
            {"$facet": {"count": [{"$count": "n"}], "first": [{"$limit": int(limit)}]}},
        ])
        result = next(iter(cursor), {"count": [], "first": []})
        count = result["count"][0]["n"] if result["count"] else 0
        return count, [{"sku": d["sku"], "title": d.get("title", "")} for d in result["first"]]

    def totals_with_tax(self, start, end, tax_percent):
        """Monthly store revenue in ``[start, end)`` with tax added (``$let``), from ``stats.monthly``.

        ``start``, ``end``: aware UTC month starts, or None for an open bound.
        ``tax_percent``: an int 0..100. Returns ``[{d, net, tax, gross}, ...]``
        in cents (tax rounded to the cent), oldest first. Raises ValueError
        for a rate outside 0..100.
        """
        tax_percent = int(tax_percent)
        if not 0 <= tax_percent <= 100:
            raise ValueError("The tax rate must be between 0 and 100 percent.")
        tax = {"$round": [{"$divide": [{"$multiply": ["$total", tax_percent]}, 100]}, 0]}
        cursor = self.get_collection("stats.monthly").aggregate([
            {"$match": {"k": "store", **period_filter(start, end)}},
            {"$project": {"_id": 0, "d": 1, "net": "$total", "tax": tax,
                          "gross": {"$let": {"vars": {"net": "$total", "tax": tax},
                                             "in": {"$add": ["$$net", "$$tax"]}}}}},
            {"$sort": {"d": ASCENDING}},
        ])
        return [{"d": clock.aware(r["d"]), "net": int(r["net"]), "tax": int(r["tax"]),
                 "gross": int(r["gross"])} for r in cursor]

    def sales_by_weekday(self, start=None, end=None):
        """Store revenue and sales per weekday over ``[start, end)`` from ``stats.daily``
        (``$dayOfWeek``). Returns 7 rows ``{weekday, total, count}``, Monday first."""
        cursor = self.get_collection("stats.daily").aggregate([
            {"$match": {"k": "store", **period_filter(start, end)}},
            {"$group": {"_id": {"$dayOfWeek": "$d"}, "total": {"$sum": "$total"},
                        "count": {"$sum": "$count"}}},
        ])
        found = {d["_id"]: d for d in cursor}
        order = [2, 3, 4, 5, 6, 7, 1]  # $dayOfWeek: 1 = Sunday
        return [{"weekday": WEEKDAYS[n - 1], "total": found.get(n, {}).get("total", 0),
                 "count": found.get(n, {}).get("count", 0)} for n in order]
