"""Retention: finished carts leave ``carts`` (``manage.py purge_carts``): ``Cart.retention``.

``carts`` would otherwise keep every cart ever started, and every read or
write that scans it (the local SecantusDB server scans more often than
(docs/local-server-differences.md: local-server difference 3)
MongoDB: docs/local-server.md) would cost more each day. A cart whose story
is over, ``complete`` (its order holds the lines, prices and totals),
``expired`` (its units are back on the shelf) or ``merged`` (its lines
live in the account's cart), is deleted once unchanged for the retention
period. Never a cart still holding a reservation (a checkout's pull or an
expiry's return that crashed: ``cleanup_inventory`` settles it first, so
the next run deletes it), nor one the caller names in ``keep`` (the carts of
unfinished payments, which ``reconcile_payments`` still reads).
"""

from django.apps import apps
from django.db import models

from core.mongo.collections import MongoCollectionMixin

from .rules import BATCH_SIZE, IDS_PER_READ, batched

#: The statuses no cart leaves: a cart in one of them is only history.
FINISHED_STATUSES = ("complete", "expired", "merged")


class CartRetentionManager(MongoCollectionMixin, models.Manager):
    """``Cart.retention``: ``purge``, delete the finished carts older than a threshold (see the module docstring)."""

    def purge(self, threshold, keep=(), progress=None):
        """Delete the carts in a ``FINISHED_STATUSES`` status unchanged since before ``threshold``
        (an aware UTC datetime), but those still holding a reservation and those in ``keep``.

        Per status one streamed read of the ids (the ``status_last_modified``
        index: an equality and a range), then per ``IDS_PER_READ`` ids one read
        of which still hold reservations (``Inventory.objects.carts_holding``)
        and one ``delete_many`` of the others, which again requires the status
        and the age, so a cart that changed in between stays. ``progress(n)``,
        when given, is called after each batch with its number of carts.
        Returns ``{'deleted': n, 'held': n}`` (held: kept for their reservations).
        """
        keep = set(keep)
        stock = apps.get_model("inventory", "Inventory").objects
        report = {"deleted": 0, "held": 0}
        for status in FINISHED_STATUSES:
            query = {"status": status, "last_modified": {"$lt": threshold}}
            cursor = self.collection.find(query, {"_id": 1}, batch_size=BATCH_SIZE)
            for ids in batched((d["_id"] for d in cursor if d["_id"] not in keep), IDS_PER_READ):
                holding = stock.carts_holding(ids)
                gone = [cart_id for cart_id in ids if cart_id not in holding]
                report["held"] += len(ids) - len(gone)
                if gone:
                    report["deleted"] += self.collection.delete_many({**query, "_id": {"$in": gone}}).deleted_count
                if progress is not None:
                    progress(len(ids))
        return report
