"""Reservations a crash left behind: the "Inventory Management" use case's "Error Handling"
(``cleanup_inventory``).

``Inventory.cleanup`` (``ReservationCleanupManager``): ``cleanup`` settles the reservations a crash between a cart write and its inventory
write left behind. The source's bug fixed (docs/operations.md): cleanup keeps the
carted entry apart from the cart. It never returns the reservation of a *complete*
cart to stock: those units are sold, and the entry is only dropped. It writes only
``inventory`` and reads the carts through ``Cart.objects``.
"""

import datetime

from django.apps import apps
from django.db import models
from pymongo import UpdateOne

from core import clock
from core.mongo.collections import MongoCollectionMixin

from . import rules
from .rules import LIVE_STATUSES, batched, return_entry


def _carts():
    """``Cart.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Cart").objects


class ReservationCleanupManager(MongoCollectionMixin, models.Manager):
    """``Inventory.cleanup``: the "Inventory Management" use case's ``cleanup_inventory`` (its ``collection`` is ``inventory``)."""

    def _stale_entries(self, threshold):
        """``(sku, entry)`` for every reservation made before ``threshold``, streamed (one read)."""
        cursor = self.collection.find({"carted.timestamp": {"$lt": threshold}}, {"carted": 1},
                                      batch_size=100)
        for document in cursor:
            for entry in document.get("carted", []):
                if clock.aware(entry["timestamp"]) < threshold:
                    yield document["_id"], entry

    def cleanup(self, timeout, progress=None):
        """The "Inventory Management" use case ``cleanup_inventory``: settle reservations older than ``timeout`` seconds.

        Reads the stale reservations (``carted.timestamp`` below the
        threshold) and the status and SKUs of their carts, then with one
        ``bulk_write`` per kind and batch: refreshes the timestamp of those
        whose cart is active or pending and still has a line for the SKU
        (first pass); drops those of complete carts without returning them
        (the units are sold: checkout crashed before its pull); returns the
        others (cart expired, expiring or gone, or a live cart without the
        line: a removal that crashed or is in flight) to ``qty``, each with
        a write conditional on that very entry (its quantity and timestamp as
        read), so a concurrent ``expire_carts`` or a second run cannot return
        it twice, nor this run a reservation the shopper made again since.
        One streamed pass over the inventory documents holding stale
        reservations, settled ``BATCH_SIZE`` reservations at a time (bounded
        memory: 1 read of their carts per ``IDS_PER_READ`` carts, at most 3
        bulk writes); ``progress(n)``,
        when given, is called after each batch with its number of reservations.
        Returns ``{'refreshed': n, 'sold': n, 'returned': n}`` (reservations).
        """
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        moment = clock.now()
        report = {"refreshed": 0, "sold": 0, "returned": 0}
        for batch in batched(self._stale_entries(threshold), rules.BATCH_SIZE):
            carts = {}
            for ids in batched({entry["cart_id"] for _, entry in batch}, rules.IDS_PER_READ):
                carts.update(_carts().statuses_and_skus(ids))
            writes = {"refreshed": [], "sold": [], "returned": []}
            for sku, entry in batch:
                cart_id = entry["cart_id"]
                status, skus = carts.get(cart_id, (None, ()))
                if status in LIVE_STATUSES and sku in skus:
                    writes["refreshed"].append(UpdateOne(
                        {"_id": sku, "carted.cart_id": cart_id},
                        {"$set": {"carted.$.timestamp": moment}},
                    ))
                elif status == "complete":
                    writes["sold"].append(UpdateOne(
                        {"_id": sku, "carted.cart_id": cart_id},
                        {"$pull": {"carted": {"cart_id": cart_id}}},
                    ))
                else:
                    # The entry as read, timestamp included (``return_entry``): the cart may be
                    # live without the line because its removal is in flight, and the shopper
                    # may add the SKU again before this write.
                    writes["returned"].append(UpdateOne(*return_entry(cart_id, sku, entry["qty"], entry["timestamp"])))
            # One bulk per kind, so that each kind's count is that bulk's own.
            for kind, kind_writes in writes.items():
                if kind_writes:
                    report[kind] += self.collection.bulk_write(kind_writes, ordered=False).modified_count
            if progress is not None:
                progress(len(batch))
        return report
