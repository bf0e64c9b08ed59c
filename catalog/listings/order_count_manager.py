"""``OrderCount.objects``: a category's products counted along its sorts by price and by
title, kept so that a page of a large category sorted so reads only the products it shows
and those beside them, not every product of the category (``order_counts``).

The local server never sorts from an index: a page sorted by price or title
(docs/local-server-differences.md: local-server difference 6)
reads and sorts every product of its category (about 1.7 s for the 10,000 of a
top category of 100,000). With the counts, a page finds which *chunks* of the
order hold its rows ``[start, stop)`` and reads only those: one range on the
sorted field, on the ``listed_in_retail`` or ``listed_in_title`` index, sorted,
skipped and limited as the whole sort would be (ties in ``_id`` order, as in
``catalog.listings.query.SORTS``).

One document per category and sort (``kind``: ``"price"`` on ``pricing.retail``,
``"title"`` on ``title``)::

    {_id: "<category id>:<kind>", category, kind, relisted: <token>, counted_at,
     bands: [[band, token, [[first value, n], ...]], ...]}

A *band* is the part of the order a version names: a price band about 2 %
wide (``cache.price_count_band``, version ``prices:<id>:n<band>``, in the
family of the page bands a page sorted by price reads anyway) or a title's
first three characters (``cache.title_window``, version
``titles:<id>:<window>``); band 0 and window ``""`` hold the products without
a price or title (they sort first; a page that reaches them sorts every
product instead). Within a band, its
products in order are cut into chunks of about ``CHUNK`` products, each named by
its first value and never cutting a value's ties, so a chunk is the range from
its first value to the next chunk's.

Every write that changes which products of a category lie in a band (a price
or title changed, a product joining or leaving the listing) bumps its version
(``catalog/store/writes.py``), and a band's chunks are shown only while the
token kept with them is its current one: a band whose token changed is counted
again (one aggregation over that band's products of the category) and kept
over, the others stay. ``relisted`` is the token of ``relisted:<id>`` (bumped
by a move of a subtree below the category and by writes too large to name their
versions): when it changed, the whole category is counted again. Tokens are
read *before* the products are counted, so a count that raced a write is kept
under the version from before it and counted again by the next reader: never
wrong, at worst counted twice. The epoch is not in the stamp (an epoch bump
cools the cache, not these); the writes that can change the products without
bumping versions forget or rewrite them all (``Product.writes.delete_all``,
``populatedb``, ``load_catalog``: ``recount_all``).
"""

import math

from django.db import models
from pymongo import ReplaceOne

from core import clock
from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import (PRICE_COUNT_RATIO, UNSET, family_versions, price_count_band, prices_family,
                                 relisted_scope, title_window, titles_family, versions_now)
from catalog.store.siblings import catalog_model

#: About how many products a chunk holds (a value's ties are never cut, so a chunk of one
#: value may hold more): a page of 24 reads one to three chunks.
CHUNK = 48
#: At most about this many chunks are kept per category and sort: a larger category gets
#: larger chunks.
MOST_CHUNKS = 5000


def _versions():
    return catalog_model("CatalogVersion").objects


def _products():
    return catalog_model("Product").objects


class _Kind:
    """A kept sort: its field, its bands and their versions (``<family><mark><band>``)."""

    def __init__(self, name, field, band, family, odd, mark, parse):
        self.name, self.field, self.band, self.family, self.odd = name, field, band, family, odd
        self._mark, self._parse = mark, parse

    def scope(self, category_id, band):
        """The version name of ``band`` of ``category_id``."""
        return f"{self.family(category_id)}{self._mark}{band}"

    def band_of_name(self, category_id, name):
        """The band a version name of ``category_id``'s family names (None: not one of the
        kept counts', e.g. a page band ``prices:<id>:<band>`` of ``cache.prices_scope``)."""
        rest = name[len(self.family(category_id)):]
        if not rest.startswith(self._mark):
            return None
        try:
            return self._parse(rest[len(self._mark):])
        except ValueError:
            return None

    def band_filter(self, band):
        """A range on the field holding every product of ``band`` (and maybe a few beside,
        which the counter leaves out by ``band``); None for the odd band."""
        if band == self.odd:
            return None
        if self.name == "price":
            low = math.floor(PRICE_COUNT_RATIO ** (band - 1)) - 1
            return {"$gte": max(low, 0), "$lt": math.ceil(PRICE_COUNT_RATIO ** band) + 1}
        following = ord(band[-1]) + 1
        if 0xD800 <= following <= 0xDFFF:  # no string holds a lone surrogate
            following = 0xE000
        if following > 0x10FFFF:
            return {"$gte": band}
        return {"$gte": band, "$lt": band[:-1] + chr(following)}


KINDS = {
    "price": _Kind("price", "pricing.retail", price_count_band, prices_family, 0, "n", int),
    "title": _Kind("title", "title", title_window, titles_family, "", "", str),
}


def _document_id(category_id, kind):
    return f"{category_id}:{kind}"


def _chunks(values, size):
    """``[[first value, n], ...]``: ``values`` (``{value: products}`` of one band) in order,
    cut into chunks of at least ``size`` products (the last may hold fewer); the odd band's
    values (no order among them) are one chunk."""
    chunks = []
    for value in sorted(values):
        if not chunks or chunks[-1][1] >= size:
            chunks.append([value, 0])
        chunks[-1][1] += values[value]
    return chunks


class Chunk:
    """A part of a kept order: ``band``, ``first`` (its first value), ``n`` (its products),
    ``odd`` (the products without the field's value: no range reads them)."""

    __slots__ = ("band", "first", "n", "odd")

    def __init__(self, band, first, n, odd):
        self.band, self.first, self.n, self.odd = band, first, n, odd

    def __repr__(self):
        return f"Chunk({self.band!r}, {self.first!r}, {self.n}, odd={self.odd})"


class OrderCountManager(MongoCollectionMixin, models.Manager):
    """The kept order counts of categories (see the module docstring)."""

    def chunks(self, category_id, kind):
        """The chunks (``Chunk``, ascending: the odd band first) of the products listed in
        ``category_id`` (an ObjectId) sorted by ``kind`` (``"price"`` or ``"title"``),
        from the kept document whose bands are current: one read of the versions of the
        category's bands (none in a request that read them already) and of ``relisted:<id>``,
        one read of the document; a band whose version changed since it was counted is
        counted again (one aggregation over its products each) and the document kept over
        (one write); a category never counted, or relisted since, is counted whole (one
        aggregation over its products). Raises KeyError for another ``kind``."""
        spec = KINDS[kind]
        (relisted,) = versions_now(relisted_scope([category_id]), _versions().tokens)
        family = family_versions(spec.family(category_id), _versions().family)
        document = self.collection.find_one({"_id": _document_id(category_id, kind)})
        if document is None or document.get("relisted") != relisted:
            bands = self._count(category_id, spec, None, family)
        else:
            bands = {band: (token, chunks) for band, token, chunks in document.get("bands") or []}
            named = {spec.band_of_name(category_id, name) for name in family} - {None}
            stale = {b for b in bands if bands[b][0] != family.get(spec.scope(category_id, b), UNSET)}
            stale |= {b for b in named if b not in bands}
            if spec.odd in stale:
                bands = self._count(category_id, spec, None, family)
            elif stale:
                bands.update(self._count(category_id, spec, sorted(stale), family))
            else:
                return _ordered(bands, spec)
        self._keep(category_id, kind, relisted, bands)
        return _ordered(bands, spec)

    def _count(self, category_id, spec, bands, family):
        """``{band: (token, chunks)}`` of ``bands`` of ``category_id`` (None: every band,
        those its versions name included), counted now: one aggregation (grouped by value)
        over the products of each band (``bands``) or of the category (None)."""
        size = CHUNK
        values = {}
        if bands is None:
            rows = _products().collection.aggregate([{"$match": {"listed_in": category_id}},
                                                     {"$group": {"_id": f"${spec.field}", "n": {"$sum": 1}}}])
            for row in rows:
                values.setdefault(spec.band(row["_id"]), {})[row["_id"]] = row["n"]
            total = sum(n for per_band in values.values() for n in per_band.values())
            size = max(CHUNK, math.ceil(total / MOST_CHUNKS))
            bands = set(values) | ({spec.band_of_name(category_id, name) for name in family} - {None})
        else:
            for band in bands:
                match = {"listed_in": category_id, spec.field: spec.band_filter(band)}
                rows = _products().collection.aggregate([{"$match": match},
                                                         {"$group": {"_id": f"${spec.field}", "n": {"$sum": 1}}}])
                values[band] = {row["_id"]: row["n"] for row in rows if spec.band(row["_id"]) == band}
        counted = {}
        for band in bands:
            per_value = values.get(band) or {}
            token = family.get(spec.scope(category_id, band), UNSET)
            if band == spec.odd:
                counted[band] = (token, [[None, sum(per_value.values())]] if per_value else [])
            else:
                counted[band] = (token, _chunks(per_value, size))
        return counted

    def _keep(self, category_id, kind, relisted, bands):
        """Keep ``bands`` (``{band: (token, chunks)}``) of ``category_id`` (one write). Two
        readers keeping one category at once: the later write stays, each band stamped with
        the token it was counted at."""
        document = {"_id": _document_id(category_id, kind), "category": category_id, "kind": kind,
                    "relisted": relisted, "counted_at": clock.now(),
                    "bands": [[band, token, chunks] for band, (token, chunks) in sorted(bands.items())]}
        self.collection.replace_one({"_id": document["_id"]}, document, upsert=True)

    def recount_all(self):
        """Count every category's products by price and by title (one read of every product's
        categories, price and title; three reads of the versions) and keep them over all kept
        before (one delete, one write): ``populatedb`` and ``load_catalog`` at their end,
        ``recount_listings``. Returns the number of documents kept."""
        families, by_prefix = {}, {}
        for prefix in ("prices:", "titles:", "relisted:"):
            families.update(_versions().family(prefix))
        for name in families:  # "prices:<id>:<band>" under "prices:<id>:"
            kind, _sep, rest = name.partition(":")
            category, sep, _band = rest.partition(":")
            if sep:
                by_prefix.setdefault(f"{kind}:{category}:", []).append(name)
        per = {}  # {(category, kind): {band: {value: n}}}
        fields = {"listed_in": 1, "pricing.retail": 1, "title": 1}
        for product in _products().collection.find({}, fields):
            retail = (product.get("pricing") or {}).get("retail")
            for category_id in product.get("listed_in") or []:
                for kind, value in (("price", retail), ("title", product.get("title"))):
                    bands = per.setdefault((category_id, kind), {})
                    per_band = bands.setdefault(KINDS[kind].band(value), {})
                    per_band[value] = per_band.get(value, 0) + 1
        moment = clock.now()
        writes = []
        for (category_id, kind), bands in per.items():
            spec = KINDS[kind]
            total = sum(n for per_band in bands.values() for n in per_band.values())
            size = max(CHUNK, math.ceil(total / MOST_CHUNKS))
            prefix = spec.family(category_id)
            named = {spec.band_of_name(category_id, n) for n in by_prefix.get(prefix, ())} - {None}
            kept = []
            for band in sorted(set(bands) | named):
                per_value = bands.get(band) or {}
                chunks = ([[None, sum(per_value.values())]] if per_value else []) if band == spec.odd \
                    else _chunks(per_value, size)
                kept.append([band, families.get(spec.scope(category_id, band), UNSET), chunks])
            document = {"_id": _document_id(category_id, kind), "category": category_id, "kind": kind,
                        "relisted": families.get(relisted_scope([category_id])[0], UNSET),
                        "counted_at": moment, "bands": kept}
            writes.append(ReplaceOne({"_id": document["_id"]}, document, upsert=True))
        self.collection.delete_many({})
        if writes:
            self.collection.bulk_write(writes, ordered=False)
        return len(writes)

    def forget_all(self):
        """Forget every kept count (every product deleted): the next page of each category
        sorted by price or title counts its products again."""
        self.collection.delete_many({})


def _ordered(bands, spec):
    """The chunks of ``bands`` (``{band: (token, chunks)}``) in ascending order."""
    return [Chunk(band, first, n, band == spec.odd)
            for band in sorted(bands) for first, n in bands[band][1] if n]
