"""``Product.facets`` (``FacetManager``): a listing's facet counts, MongoDB's aggregation framework over a listing's products.

One aggregation gives every count of a listing's facets ("Product Catalog"
use case; the ``$group`` of the aggregation framework, ``$facet`` and
``$bucket``): ``$match`` the listing's filters, then a ``$facet`` with one
sub-pipeline per facet (``$group`` by the attribute's value, a single
value or a whole list, and count; the lists are split into their values
here), the price bands (``$bucket`` on ``pricing.retail``) and the totals.
(An ``$unwind`` of the lists first, as usual, cost SecantusDB 0.7.0b3
(docs/local-server-differences.md: local-server differences 22 and 2)
four times the match itself: it copies each whole product once per value.
Grouping by the whole list gives a few distinct lists, split here, with
the same counts on any server; a product counts once per distinct value.) Each facet's counts apply the other
facets' choices and not its own (the usual faceting rule: a shopper sees
what choosing one more value of a facet would add). The result is cached
with the listing, under its scope's versions (``catalog/store/cache.py``).

Stock is never cached with it: "in stock" counts the products whose SKU is
not sold out (``sold_out_skus``: no units available, or a product whose
every variant has none), read from the
inventory and cached for ``IN_STOCK_SECONDS`` only (``in_stock_count``).
"""

from django.conf import settings
from django.core.cache import caches
from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import cache_key, cached, catalog_version
from catalog.listings.facets import PRICE_BANDS
from catalog.listings.facet_parts import FacetPartsMixin
from inventory.models import Inventory

#: How long an "in stock" count is kept (seconds): the count may be this late; the filter
#: itself (``in_stock=1``) reads the sold-out SKUs on every request.
IN_STOCK_SECONDS = 15
#: ``$bucket`` of the price bands: their lower bounds (cents); the last band is the default.
_BOUNDARIES = [low for _key, _label, low, high in PRICE_BANDS if high is not None] + \
    [PRICE_BANDS[-1][2]]
_OVER = "over"


def _band_key(bucket_id):
    if bucket_id == _OVER:
        return PRICE_BANDS[-1][0]
    return next(key for key, _label, low, _high in PRICE_BANDS if low == bucket_id)


def _value_counts(rows):
    """``[(value, products), ...]``, most first, then by value, from ``$group`` rows ``{_id:
    a value or a list of values, n}``; values that are not strings are left out."""
    counts = {}
    for row in rows:
        values = row["_id"] if isinstance(row["_id"], list) else [row["_id"]]
        for value in {v for v in values if isinstance(v, str)}:
            counts[value] = counts.get(value, 0) + row["n"]
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _group_key(field):
    """The ``$group`` key of a facet ``field``: its path, or for a variant attribute
    (``variants.options.<code>``) the list of its variants' values as a ``$map``. (SecantusDB
    0.7.0b3 evaluates a path through an array of subdocuments in an expression as missing;
    MongoDB gives the list of values, as the ``$map`` does on both.)"""
    head, _, rest = field.partition(".")
    if head == "variants":
        return {"$map": {"input": {"$ifNull": ["$variants", []]}, "in": "$$this." + rest}}
    return "$" + field


class FacetManager(FacetPartsMixin, MongoCollectionMixin, models.Manager):
    """``Product.facets``: the counts of a listing's facets, the sold-out SKUs its "in stock"
    choice leaves out, and a category's counts kept per issue decade (``FacetPartsMixin``,
    ``catalog/listings/facet_parts.py``: the same job, its own module). The storefront's
    ``catalog.listings.facets.facet_panel`` is its caller."""

    def facet_counts(self, stages, fields, filters, scope):
        """The counts of a listing's facets: one aggregation, cached with the listing (``scope``:
        its cache scope, ``catalog.store.cache.listing_scope``).

        ``stages``: the listing's filters (a list of ``$match`` filters, the
        first served by an index: ``{listed_in: id}``, ``{keywords: word}``);
        ``fields``: the facets ``[{code, field}]`` (``catalog.listings.facets.facet_fields``);
        ``filters``: the chosen facets' filters ``{code: filter}``
        (``catalog.listings.facets.choice_filters``; price under ``"price"``, stock under
        ``"in_stock"``). Returns ``{"total": products matching every filter,
        "listed": products matching all but "in_stock", "values": {code:
        [(value, products), ...] most first, then by value}, "bands": {band key:
        products}}``; each code's and the bands' counts apply every filter but
        their own. Values that are not strings are left out. The cost is the
        listing's matches, once (about 40 µs each on SecantusDB 0.7.0b3).
        """
        if not filters and len(stages) == 1 and set(stages[0]) == {"listed_in"} \
                and not isinstance(stages[0]["listed_in"], dict):
            # A category page without a choice: summed from its issue-decade parts.
            def summed():
                counts = self.category_facet_counts(stages[0]["listed_in"], fields)
                return {"total": counts["total"], "listed": counts["total"],
                        "values": {code: sorted(values.items(), key=lambda item: (-item[1], item[0]))
                                   for code, values in counts["values"].items()},
                        "bands": counts["bands"]}

            return cached("facets", ("parts", stages, [f["field"] for f in fields]), summed, scope)

        if not filters and stages and all(list(s) == ["keywords"] and isinstance(s["keywords"], str) for s in stages):
            # A search without a choice: counted with its results' ranking, one read of its
            # matches (``Product.search.search_ranked``, cached under its words' versions).
            ranked = self.model.search.search_ranked([s["keywords"] for s in stages])["facets"]
            if ranked["fields"] == [(f["code"], f["field"]) for f in fields]:
                counts = ranked["counts"]
                return {"total": counts["total"], "listed": counts["total"],
                        "values": {code: sorted(values.items(), key=lambda item: (-item[1], item[0]))
                                   for code, values in counts["values"].items()},
                        "bands": dict(counts["bands"])}

        def others(code):
            return [{"$match": f} for c, f in filters.items() if c != code]

        facets = {
            "total": [*others(None), {"$count": "n"}],
            "bands": [*others("price"), {"$bucket": {
                "groupBy": "$pricing.retail", "boundaries": _BOUNDARIES, "default": _OVER,
                "output": {"n": {"$sum": 1}}}}],
        }
        if "in_stock" in filters:  # else "listed" is "total"
            facets["listed"] = [*others("in_stock"), {"$count": "n"}]
        for number, facet in enumerate(fields):
            facets[f"v{number}"] = [*others(facet["code"]),
                                    {"$group": {"_id": _group_key(facet["field"]), "n": {"$sum": 1}}}]
        pipeline = [*({"$match": s} for s in stages), {"$facet": facets}]

        def read():
            result = next(iter(self.read_collection.aggregate(pipeline)), {})
            total = result.get("total") or [{"n": 0}]
            listed = result.get("listed", total) or [{"n": 0}]
            return {
                "total": total[0]["n"], "listed": listed[0]["n"],
                "values": {facet["code"]: _value_counts(result.get(f"v{number}", ()))
                           for number, facet in enumerate(fields)},
                "bands": {_band_key(row["_id"]): row["n"] for row in result.get("bands", ())},
            }

        return cached("facets", pipeline, read, scope)

    def sold_out_skus(self):
        """The SKUs with no units available (a sorted list of str), and the SKUs of the products
        with variants whose every variant is among them (a product with variants has no stock
        record of its own SKU): one read of the inventory, and when something is sold out one
        read of the products selling those SKUs (on the ``skus`` index); never cached. A
        product without a stock record is not among them."""
        sold_out = set(Inventory.objects.skus_available(at_least=0, at_most=0))
        if sold_out:
            sellers = self.read_collection.find({"skus": {"$in": sorted(sold_out)}}, {"sku": 1, "variants.sku": 1})
            sold_out |= {d["sku"] for d in sellers
                         if d.get("variants") and all(v.get("sku") in sold_out for v in d["variants"])}
        return sorted(sold_out)

    def in_stock_count(self, stages, filters, listed):
        """How many of the ``listed`` products matching ``stages`` and ``filters`` (as
        ``facet_counts``, without an ``"in_stock"`` filter) have units available: ``listed``
        less those sold out (``sold_out_skus``, then one aggregation that starts from their
        SKUs on the unique ``sku`` index, none when nothing is sold out). Kept
        ``IN_STOCK_SECONDS`` in the catalog cache (per catalog version), so it may be
        that late; outside a request computed every time."""
        def read():
            sold_out = self.sold_out_skus()
            if not sold_out:
                return listed
            pipeline = [{"$match": {"sku": {"$in": sold_out}}}, *({"$match": s} for s in stages),
                        *({"$match": f} for f in filters.values()), {"$count": "n"}]
            found = next(iter(self.read_collection.aggregate(pipeline)), {"n": 0})
            return listed - found["n"]

        version = catalog_version()
        if version is None:
            return read()
        store = caches[settings.CATALOG_CACHE]
        name = cache_key("in_stock", (stages, filters, listed), version)
        count = store.get(name)
        if count is None:
            count = read()
            store.set(name, count, IN_STOCK_SECONDS)
        return count
