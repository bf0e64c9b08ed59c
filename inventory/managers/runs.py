"""``ExpiryRun.objects``: the expiry runs not finished yet (``expiry_runs``), one small document each.

``{_id: run id, stamp, threshold, born_before, cart_ids}``. A run (``Cart.objects``'
``expire``, ``reclaim_abandoned``, ``expire_cart``: ``expiry.CartExpiry``)
records itself here *before* it writes any cart, makes its carts
``expired`` in one write each (tagged with its id, ``last_modified`` =
its ``stamp``), returns their reservations, and only then deletes its
document. A document left here is a run that crashed or is still going:
the next ``expire_carts`` finishes it. So the collection holds a handful of
documents at most, read whole.
"""

from django.db import models

from core.mongo.collections import MongoCollectionMixin


class ExpiryRunManager(MongoCollectionMixin, models.Manager):
    """The unfinished expiry runs (see the module docstring)."""

    def unfinished(self):
        """The raw documents of the runs not finished yet, oldest ``stamp`` first (one read).

        Each is ``{_id, stamp, threshold, cart_ids}`` (``threshold``: a naive
        UTC datetime or None; ``cart_ids``: a list of str, or None for every cart).
        """
        return list(self.collection.find({}).sort("stamp", 1))

    def start(self, run):
        """Record the run ``run`` (the dict ``{_id, stamp, threshold, born_before, cart_ids}``) as started (one write)."""
        self.collection.insert_one(run)

    def finish(self, run_ids):
        """Forget the runs ``run_ids`` (a list of str): every cart they expired has its stock back (one write)."""
        self.collection.delete_many({"_id": {"$in": list(run_ids)}})
