"""``FacetCount.objects``: a category's facet counts kept in the database, one document per
issue decade, so that a cold cache (a restarted worker, an emptied cache) reads them rather
than counting the category's products again.

``{_id: "<category id>:<part>", category, part, stamp, total, bands: [[band, n]],
values: [[code, [[value, n], ...]], ...], by: [[code, multi, [[value, total, bands,
values], ...]], ...], counted_at}``; ``by``: the counts of the part's products holding
each value of a facet of few values (and each price band), which a page with that value
chosen sums (``FacetPartsMixin.category_choice_counts``), left out of a part that would
hold more than ``MOST_VALUES_KEPT`` values with them. ``part`` is an issue
decade of ``catalog/listings/facet_parts.py``; ``stamp`` names what the counts were
counted at: the facet fields and the versions of the part
(``faceted:<id>:<part>``, ``relisted:<id>``; ``catalog/store/cache.py``) read *before*
the products were counted. Every write that changes what a part counts bumps one
of those versions (``catalog/store/writes.py``), so a kept part whose stamp
is not the current one is never shown: it is counted again and kept over. A
count that raced a write is stamped with the version from before the write and
is counted again by the next reader: never wrong, at worst counted twice.
Values are lists, not keys: a value may hold any character.

The epoch is not in the stamp (an epoch bump cools the cache, not these); the
writes that can change counts without bumping a part's version forget them all
(``forget_all``: every product deleted, a product type changed). A part with
more than ``MOST_VALUES_KEPT`` values is not kept (it would make a large
document): it is counted on every cold read.
"""

from django.db import models
from pymongo import ReplaceOne

from core import clock
from core.mongo import keep_first_of_racing_upserts
from core.mongo.collections import MongoCollectionMixin

#: A part whose facets hold more values than this, all facets together, is not kept.
MOST_VALUES_KEPT = 20_000


def _id(category_id, part):
    return f"{category_id}:{part}"


def _size(counts):
    """How many values ``counts`` holds, all facets together, its conditioned counts too."""
    size = sum(len(v) for v in counts["values"].values())
    for by in (counts.get("by") or {}).values():
        size += sum(len(c["values"]) + sum(len(v) for v in c["values"].values()) for c in by["values"].values())
    return size


def _flat(counts):
    return [counts["total"], sorted(counts["bands"].items()),
            [[code, sorted(values.items())] for code, values in counts["values"].items()]]


def _unflat(flat):
    total, bands, values = flat
    return {"total": total, "bands": dict(map(tuple, bands)),
            "values": {code: dict(map(tuple, found)) for code, found in values}}


def _stored(counts, stamp, category_id, part, moment):
    """The document of ``counts`` (``{"total", "values": {code: {value: n}}, "bands": {band:
    n}, "by": {code: {"multi", "values": {value: counts}}}}``, ``by`` optional: the
    conditioned counts of ``catalog/listings/facet_parts.py``, left out when the whole would
    hold more than ``MOST_VALUES_KEPT`` values)."""
    by = counts.get("by")
    if by is not None and _size(counts) > MOST_VALUES_KEPT:
        by = None
    return {"_id": _id(category_id, part), "category": category_id, "part": str(part), "stamp": stamp,
            "total": counts["total"], "bands": sorted(counts["bands"].items()),
            "values": [[code, sorted(values.items())] for code, values in counts["values"].items()],
            **({} if by is None else {"by": [[code, c["multi"], [[value, *_flat(n)] for value, n in
                                                                 sorted(c["values"].items())]]
                                             for code, c in by.items()]}),
            "counted_at": moment}


def _counts(document):
    found = {"total": document["total"], "bands": dict(map(tuple, document["bands"])),
             "values": {code: dict(map(tuple, values)) for code, values in document["values"]}}
    if "by" in document:
        found["by"] = {code: {"multi": multi, "values": {row[0]: _unflat(row[1:]) for row in rows}}
                       for code, multi, rows in document["by"]}
    return found


class FacetCountManager(MongoCollectionMixin, models.Manager):
    """The kept facet counts of categories per issue decade (see the module docstring)."""

    def kept(self, category_id, stamps):
        """``{part: counts}`` of the parts of ``category_id`` (an ObjectId) whose kept stamp is
        the one ``stamps`` (``{part: stamp}``) gives: one read by ``_id`` (an ``$in`` of at most
        a dozen). ``counts`` as ``FacetPartsMixin`` counts them: ``{"total", "values": {code:
        {value: n}}, "bands": {band key: n}}``."""
        # An ``$in`` of the ids rather than a range of "<id>:" strings: SecantusDB 0.7.0b3
        # (docs/local-server-differences.md: local-server difference 18)
        # scans the collection for a range of ``_id`` (MongoDB reads either from the index).
        found = self.kept_parts({(category_id, part): stamp for part, stamp in stamps.items()})
        return {part: counts for (_category, part), counts in found.items()}

    def kept_parts(self, stamps):
        """``{(category id, part): counts}`` of the parts of ``stamps`` (``{(category id, part):
        stamp}``) kept at that stamp: one read by ``_id`` (an ``$in``), as ``kept``."""
        ids = {_id(*place): place for place in stamps}
        found = {}
        for document in self.collection.find({"_id": {"$in": sorted(ids)}}):
            place = ids.get(document["_id"])
            if place is not None and document.get("stamp") == stamps[place]:
                found[place] = _counts(document)
        return found

    def shift(self, moved):
        """Replace each part of ``moved`` (``{(category id, part): (stamp, new stamp, counts)}``)
        with ``counts`` stamped ``new stamp``, only while it is still kept at ``stamp`` (a
        compare-and-set on the stamp, no upsert): one write, none for nothing. A part whose
        counts would hold more than ``MOST_VALUES_KEPT`` values is left (counted again)."""
        moment = clock.now()
        writes = [ReplaceOne({"_id": _id(category_id, part), "stamp": stamp},
                             _stored(counts, new_stamp, category_id, part, moment))
                  for (category_id, part), (stamp, new_stamp, counts) in sorted(moved.items(), key=str)
                  if sum(len(v) for v in counts["values"].values()) <= MOST_VALUES_KEPT]
        if writes:
            self.collection.bulk_write(writes, ordered=False)

    def keep(self, category_id, counted):
        """Keep ``counted`` (``{part: (stamp, counts)}``) for ``category_id``: one write of
        the parts with at most ``MOST_VALUES_KEPT`` values (none when there are none). A
        part another reader keeps at the same moment is left to it (both counted at a
        stamp read before they counted)."""
        moment = clock.now()
        writes = [ReplaceOne({"_id": _id(category_id, part)}, _stored(counts, stamp, category_id, part, moment),
                             upsert=True)
                  for part, (stamp, counts) in counted.items()
                  if sum(len(v) for v in counts["values"].values()) <= MOST_VALUES_KEPT]
        keep_first_of_racing_upserts(self.collection, writes)

    def forget_all(self):
        """Forget every kept count (every product deleted, or a product type changed): the next
        cold read of each category counts its products again."""
        self.collection.delete_many({})
