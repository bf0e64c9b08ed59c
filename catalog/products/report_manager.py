"""``CatalogReportManager`` (``Product.reports``): the staff's reports on the catalog, written with
the operators of the Russian article on MongoDB's aggregation operators (``docs/sources.md``):
nested ``$cond``, ``$cmp``, ``$ifNull``, ``$facet``. The sales dashboard shows them beside the
sales reports (``analytics``).
"""

from django.db import models
from pymongo import ASCENDING

from core.mongo.collections import MongoCollectionMixin


def compare(a, b):
    """``{"$cmp": [a, b]}``: -1, 0 or 1."""
    return {"$cmp": [a, b]}


#: Price bands of the price-band report: (upper bound in cents, exclusive, or None; label).
PRICE_BANDS = [(500, "under $5"), (1000, "$5 to $9.99"), (2000, "$10 to $19.99"), (None, "$20 and over")]


class CatalogReportManager(MongoCollectionMixin, models.Manager):
    """Reports over ``products`` for the staff."""

    def count_by_category_list(self):
        """``[(category ids, number of products listed in exactly those), ...]``: one aggregation.

        Grouping on the whole ``categories`` array gives each distinct list
        once, so the caller can count a product once per category *and* once
        per ancestor (the admin tree's subtree counts), however many of its
        categories share that ancestor.
        """
        pipeline = [{"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return [(row["_id"] or [], row["n"]) for row in self.read_collection.aggregate(pipeline)]

    def price_bands(self):
        """Products per retail price band (nested ``$cond``), and how many sell below list price
        (``$cmp`` of retail and list). Returns ``[{band, products, discounted}, ...]`` in band
        order, every band present."""
        band = len(PRICE_BANDS) - 1
        for number in range(len(PRICE_BANDS) - 2, -1, -1):
            bound = PRICE_BANDS[number][0]
            band = {"$cond": [{"$lt": ["$pricing.retail", bound]}, number, band]}
        cursor = self.collection.aggregate([
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
        cursor = self.collection.aggregate([
            {"$project": {"_id": 0, "sku": 1, "title": 1,
                          "description": {"$ifNull": ["$description", ""]}}},
            {"$match": {"description": ""}},
            {"$sort": {"sku": ASCENDING}},
            {"$facet": {"count": [{"$count": "n"}], "first": [{"$limit": int(limit)}]}},
        ])
        result = next(iter(cursor), {"count": [], "first": []})
        count = result["count"][0]["n"] if result["count"] else 0
        return count, [{"sku": d["sku"], "title": d.get("title", "")} for d in result["first"]]
