"""Expired carts' reservations back on the shelf, grouped by SKU (``Inventory.returns.return_reservations``).

The "Inventory Management" use case "Returning Inventory from Timed-Out Carts" at scale: an expiry run
of 100,000 carts over 300 SKUs used to send one conditional ``$pull`` per SKU
and per 1,000 carts, each matching a few carts against the SKU's whole
``carted`` array (about 670 entries): 30,000 rewrites of the same 300
documents. Here each inventory document the run touches is rewritten *once*:
one read of the SKUs' documents, then one ``bulk_write`` with, per SKU, a
compare-and-set of the whole ``carted`` array as read (``{_id, carted:
<as read>}``) that sets it without the run's entries and ``$inc``s ``qty``
by their units. ``qty`` is incremented, not compared: every write that moves
a reservation also changes ``carted``, so the array as read is what the
units returned depend on (a restock in between adds to ``qty`` and composes).

The compare-and-set is the form every server evaluates the same way and in
one pass over the array: the obvious alternatives (``$pull`` with ``$in`` of
the run's cart ids, ``$filter`` in a pipeline update) cost the local
SecantusDB server ``entries x carts`` comparisons in Python per document
(docs/local-server-differences.md: local-server difference 20)
(about 0.5 s each for 670 x 670); on MongoDB they would all run natively.

A SKU whose write lost a race (a shopper changed its reservations between
the read and the write) is read and written again, up to ``ATTEMPTS``
rounds; what is still left then (a very hot SKU) goes back entry by entry,
each write conditional on its own entry (``rules.return_entry``), so no
unit is ever returned twice or lost, whatever runs beside it.
"""

from django.db import models
from pymongo import UpdateOne

from core.mongo.collections import MongoCollectionMixin

from ..shown import forgets
from .rules import batched, return_entry

#: Inventory documents read and rewritten per round trip (each up to ~50 KB with 670 reservations).
SKUS_PER_BATCH = 100
#: Compare-and-set rounds for the SKUs whose write lost a race, before the entry-by-entry fallback.
ATTEMPTS = 3


class ReservationReturnManager(MongoCollectionMixin, models.Manager):
    """``Inventory.returns``: ``return_reservations``, the expiry's returns (its ``collection`` is ``inventory``)."""

    @forgets(lambda by_sku: by_sku)
    def return_reservations(self, by_sku):
        """Return to stock every reservation that the carts named in ``by_sku`` hold on its SKUs.

        ``by_sku`` is ``{sku: set of cart ids}`` (the carts being expired;
        ``Cart.objects`` groups them). Whatever quantity such a cart's
        reservation holds when its SKU is written goes back (the carts are
        ``expired``, so no shopper can change them any more; a change
        already in flight finds its entry gone and rolls its line back).
        Round trips per ``SKUS_PER_BATCH`` SKUs: 1 read + 1 ``bulk_write``
        (one update per SKU that holds any), more only when a write loses a
        race. Returns how many reservations went back (exact unless another
        run returned some of the same ones at the same moment).
        """
        returned = 0
        for skus in batched(sorted(by_sku), SKUS_PER_BATCH):
            returned += self._return_batch({sku: by_sku[sku] for sku in skus})
        return returned

    def _split(self, skus):
        """Read the documents of ``skus`` (one read): ``{sku: (carted as read, kept, returned)}``
        for each SKU holding an entry of one of its carts (``skus`` is ``{sku: cart ids}``)."""
        found = {}
        for document in self.collection.find({"_id": {"$in": list(skus)}}, {"carted": 1}):
            carted, carts = document.get("carted", []), skus[document["_id"]]
            back = [e for e in carted if e.get("cart_id") in carts]
            if back:
                found[document["_id"]] = (carted, [e for e in carted if e.get("cart_id") not in carts], back)
        return found

    def _return_batch(self, skus):
        """Return the reservations of the carts of ``skus`` (``{sku: cart ids}``); how many."""
        returned = 0
        found = self._split(skus)
        for _attempt in range(ATTEMPTS):
            if not found:
                return returned
            writes = [
                UpdateOne({"_id": sku, "carted": carted},
                          {"$set": {"carted": kept}, "$inc": {"qty": sum(e["qty"] for e in back)}})
                for sku, (carted, kept, back) in found.items()
            ]
            if self.collection.bulk_write(writes, ordered=False).modified_count == len(writes):
                return returned + sum(len(back) for _, _, back in found.values())
            # Some lost a race (which ones is not said): read them again, count the entries gone since.
            left = self._split({sku: skus[sku] for sku in found})
            returned += sum(len(back) - len(left[sku][2] if sku in left else ())
                            for sku, (_, _, back) in found.items())
            found = left
        # A SKU that kept changing: entry by entry, each conditional on its own entry.
        entries = [UpdateOne(*return_entry(e["cart_id"], sku, e["qty"]))
                   for sku, (_, _, back) in found.items() for e in back]
        if entries:
            returned += self.collection.bulk_write(entries, ordered=False).modified_count
        return returned
