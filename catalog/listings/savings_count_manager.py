"""``SavingsCount.objects``: how many products save each whole percent, kept in the database
(``savings_counts``, one small document per saving), so that a deals page never counts its
products on a request.

``{_id: pct, listed: n, stamp, first, last, counted_at, parts}``. ``listed`` is the number of
products whose ``pricing.pct_savings`` is ``pct``; ``parts`` (``{str(part): {stamp, n}}``, when
counted by decades) the same per issue decade, each stamped with ``savings:<pct>:<part>``
and ``savings-kept`` (``savings.part_stamp``), so that a recount after an edit counts only the
decades whose stamp is not current, in any process; ``stamp`` names the versions it was
counted at: ``savings:<pct>`` and ``savings-kept`` (``catalog/store/cache.py``), read
*before* the products were counted. Every write that changes which products save ``pct``
(a saving changed from or to it, a product created or deleted) bumps ``savings:<pct>``,
and a write naming too many versions (a catalog load, an import's batch) or a reset of the
catalog bumps ``savings-kept`` (``catalog/store/writes.py``), so a kept count whose stamp
is not the current one is never shown: the reader counts that saving again (today's path,
``ListingManager.savings_counts``) and keeps it over. A count that raced a write is stamped
with the version from before the write and is counted again by the next reader: never
wrong, at worst counted twice. So no write does more than it did (its bump), whatever the
size of the catalog.

``first`` and ``last`` (ObjectIds, or None) are the lowest and highest ``_id`` of those
products when they were counted whole: not a figure shown, a hint from which a deals page
guesses the window of ids that holds its page (``ListingManager.deals_page``); a wrong
hint costs a wider read, never a wrong page.

The epoch is not in the stamp: an epoch bump cools the cache, not these.
"""

from django.db import models
from pymongo import ReplaceOne

from core import clock
from core.mongo import keep_first_of_racing_upserts
from core.mongo.collections import MongoCollectionMixin


class SavingsCountManager(MongoCollectionMixin, models.Manager):
    """The kept counts of products per saving (see the module docstring)."""

    def kept(self, stamps):
        """``{pct: {"listed", "first", "last"}}`` of the savings of ``stamps`` (``{pct: stamp}``)
        whose kept stamp is that one, and ``{pct: {"first", "last", "parts"}}`` of the others
        kept with older stamps (their hints stay good; ``parts`` their counts per decade, each
        with its own stamp, ``{}`` when none): one read by ``_id`` (an ``$in`` of at most 101
        whole numbers)."""
        current, stale = {}, {}
        if not stamps:
            return current, stale
        for document in self.collection.find({"_id": {"$in": sorted(int(p) for p in stamps)}}):
            pct = document["_id"]
            hints = {"first": document.get("first"), "last": document.get("last")}
            if document.get("stamp") == stamps.get(pct) and isinstance(document.get("listed"), int):
                current[pct] = {"listed": document["listed"], **hints}
            else:
                parts = document.get("parts")
                stale[pct] = {**hints, "parts": parts if isinstance(parts, dict) else {}}
        return current, stale

    def keep(self, counted):
        """Keep ``counted`` (``{pct: (stamp, {"listed", "first", "last"[, "parts"]})}``; ``parts``
        as ``kept`` returns them): one write (none for nothing). A saving another reader keeps
        at the same moment is left to it (both counted at a stamp read before they counted)."""
        moment = clock.now()
        writes = [ReplaceOne({"_id": int(pct)}, {"_id": int(pct), "listed": int(values["listed"]), "stamp": stamp_,
                                                 "first": values.get("first"), "last": values.get("last"),
                                                 "parts": dict(values.get("parts") or {}),
                                                 "counted_at": moment}, upsert=True)
                  for pct, (stamp_, values) in counted.items()]
        keep_first_of_racing_upserts(self.collection, writes)

    def forget_all(self):
        """Forget every kept count (every product deleted): the next deals page counts again."""
        self.collection.delete_many({})
