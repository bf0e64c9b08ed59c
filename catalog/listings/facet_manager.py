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
every variant has none), read from the inventory and kept as the stock pages
show is (``STOCK_SHOWN_SECONDS``, forgotten by every stock write); the count
beside an unticked box is kept ``IN_STOCK_SECONDS`` (``in_stock_count``).

A category page with values of one facet chosen (and "in stock" or not) is
counted from what is kept rather than from its products (``chosen_counts``):
the kept counts given each value (``FacetPartsMixin.category_choice_counts``)
and the few sold-out products taken away.
"""

from django.conf import settings
from django.core.cache import caches
from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import cache_key, cached, catalog_version, note_kept
from catalog.listings.facets import PRICE_BANDS, band_filter
from catalog.listings.facet_parts import PRICE, FacetPartsMixin, _held
from catalog.listings.search_summary import chosen_bands
from inventory.models import Inventory
from inventory.shown import SOLD_OUT, shown_sold_out

#: How long an "in stock" count is kept (seconds): the count may be this late; the filter
#: itself (``in_stock=1``) reads the sold-out SKUs as the stock shown (``sold_out_skus``).
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

        bands = chosen_bands(list(filters.values())) if set(filters) == {"price"} else None
        if (not filters or bands) and stages \
                and all(list(s) == ["keywords"] and isinstance(s["keywords"], str) for s in stages):
            # A search without a choice or with price bands chosen: from its summary, counted
            # with its results' ranking (``Product.search.search_ranked``: kept in the database
            # under its words' versions, else one read of its matches).
            ranked = self.model.search.search_ranked([s["keywords"] for s in stages], bands)["facets"]
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
        read of the products selling those SKUs (on the ``skus`` index). Kept as the stock
        pages show is (``inventory.shown.shown_sold_out``: ``STOCK_SHOWN_SECONDS``, forgotten
        by every stock write), so a warm page with "in stock" chosen reads none of it; a page
        kept whole that used them is served again only while that entry holds them
        (``note_kept``: a restock of a product it leaves out shows on the next request). A
        product without a stock record is not among them."""
        sold_out = shown_sold_out(self._read_sold_out)
        if settings.STOCK_SHOWN_SECONDS:
            note_kept(SOLD_OUT, sold_out)
        return sold_out

    def _read_sold_out(self):
        sold_out = set(Inventory.objects.skus_available(at_least=0, at_most=0))
        if sold_out:
            sellers = self.read_collection.find({"skus": {"$in": sorted(sold_out)}}, {"sku": 1, "variants.sku": 1})
            sold_out |= {d["sku"] for d in sellers
                         if d.get("variants") and all(v.get("sku") in sold_out for v in d["variants"])}
        return sorted(sold_out)

    def chosen_counts(self, stages, fields, chosen, everything, sold_out, scope):
        """``facet_counts(stages, fields, filters, scope)`` of a category page with a choice in one
        facet at most (and "in stock" or not), from what is kept rather than from the category's
        products; None for any other page (the caller counts with ``facet_counts``).

        ``chosen``: ``(code, values)`` of the facet chosen (``"price"`` and band keys for the
        price bands) or None; ``everything``: the page's ``facet_counts`` without a choice;
        ``sold_out``: ``sold_out_skus()`` when "in stock" is chosen, else None. The chosen
        facet's counts (the bands' for a price band) are ``everything``'s; the others are the
        parts' conditioned counts summed (``category_choice_counts``), or where none are kept
        one aggregation over the products holding the choice (on the facet's index where it
        has one: an artist's few); "in stock" takes away the sold-out products of the
        listing (one read from their SKUs, a few). Cached under ``scope`` as ``facet_counts``."""
        if len(stages) != 1 or set(stages[0]) != {"listed_in"} or isinstance(stages[0]["listed_in"], dict):
            return None
        category_id = stages[0]["listed_in"]
        by_code = {f["code"]: f for f in fields}

        def compute():
            if chosen is None:
                given = {"total": everything["total"], "values": {c: dict(v) for c, v in everything["values"].items()},
                         "bands": dict(everything["bands"])}
            else:
                code, values = chosen
                given = self.category_choice_counts(category_id, fields, code, list(values)) \
                    or self._counted_with(stages[0], fields, code, values, by_code)
                given["values"][code] = dict(everything["values"].get(code, ()))
                if code == PRICE:
                    given["bands"] = dict(everything["bands"])
            listed = given["total"]
            if sold_out is not None:
                self._take_away_sold_out(given, stages, fields, chosen, sold_out)
            return {"total": given["total"], "listed": listed,
                    "values": {f["code"]: sorted(((v, n) for v, n in given["values"].get(f["code"], {}).items() if n > 0),
                                                 key=lambda item: (-item[1], item[0])) for f in fields},
                    "bands": {band: n for band, n in given["bands"].items() if n > 0}}

        key = (stages, [f["field"] for f in fields], chosen, sold_out)
        return cached("facets-chosen", key, compute, scope)

    def _counted_with(self, stage, fields, code, values, by_code):
        """The counts of the products matching ``stage`` that hold any of ``values`` of the facet
        ``code`` (the form of ``category_choice_counts``): one aggregation, the chosen facet's
        filter in the first ``$match`` (its index, ``listed_in`` then the field, where it has
        one: local-server difference 14 in docs/local-server-differences.md)."""
        if code == PRICE:
            condition = band_filter(values)
            pipeline = [{"$match": stage}, {"$match": condition}]
        else:
            condition = {by_code[code]["field"]: {"$in": list(values)}}
            pipeline = [{"$match": {**stage, **condition}}] if not by_code[code]["many"] \
                else [{"$match": stage}, {"$match": condition}]
        facets = {"total": [{"$count": "n"}]}
        if code != PRICE:
            facets["bands"] = [{"$bucket": {"groupBy": "$pricing.retail", "boundaries": _BOUNDARIES,
                                            "default": _OVER, "output": {"n": {"$sum": 1}}}}]
        numbered = [f for f in fields if f["code"] != code]
        for number, facet in enumerate(numbered):
            facets[f"v{number}"] = [{"$group": {"_id": _group_key(facet["field"]), "n": {"$sum": 1}}}]
        result = next(iter(self.read_collection.aggregate([*pipeline, {"$facet": facets}])), {})
        total = result.get("total") or [{"n": 0}]
        return {"total": total[0]["n"],
                "values": {facet["code"]: dict(_value_counts(result.get(f"v{number}", ())))
                           for number, facet in enumerate(numbered)},
                "bands": {_band_key(row["_id"]): row["n"] for row in result.get("bands", ())}}

    def _take_away_sold_out(self, counts, stages, fields, chosen, sold_out):
        """Take the listing's sold-out products (``sold_out``: SKUs; one read from them on the
        unique ``sku`` index) out of ``counts`` as "in stock" chosen leaves them out: out of
        every count but, for a product that does not hold the choice, those of the chosen
        facet (which leave its own choice out)."""
        if not sold_out:
            return
        projection = {"sku": 1, "pricing.retail": 1, **{f["field"]: 1 for f in fields}}
        pipeline = [{"$match": {"sku": {"$in": list(sold_out)}}}, *({"$match": s} for s in stages),
                    {"$project": projection}]
        for document in self.read_collection.aggregate(pipeline):
            values, band, bands = _held(fields, document)
            if chosen is None:
                holds, code = True, None
            else:
                code, picked = chosen
                holds = bool(set(picked) & (set(bands) if code == PRICE else values[code]))
            if holds:
                counts["total"] -= 1
            if holds or code == PRICE:
                counts["bands"][band] = counts["bands"].get(band, 0) - 1
            for facet, held in values.items():
                if holds or facet == code:
                    slot = counts["values"].setdefault(facet, {})
                    for value in held:
                        slot[value] = slot.get(value, 0) - 1

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
        note_kept(name, count)  # a page kept whole shows it only while it is kept
        return count
