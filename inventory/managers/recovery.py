"""Stock back on the shelf: seed 003's "Returning Inventory from Timed-Out Carts" and "Error Handling".

Two mixins of the inventory's managers, kept together because they share
their rules (which carts are live, batches):

* ``CartExpiry`` (``Cart.objects``): ``expire`` (``expire_carts``),
  ``expire_cart`` (staff) and ``reclaim_abandoned`` (an add short of stock
  first expires the idle carts holding that SKU). The carts are expired
  here; their reservations go back through ``Inventory.objects.return_reservations``.
* ``ReservationCleanup`` (``Inventory.objects``): ``cleanup``
  (``cleanup_inventory``), which settles the reservations a crash between
  a cart write and its inventory write left behind. Fixed seed bug
  (docs/operations.md): cleanup keeps the carted entry apart from the cart.
  It never returns the reservation of a *complete* cart to stock: those
  units are sold, and the entry is only dropped.

Each writes only its own manager's collection and reads the other through
its manager.
"""

import datetime
import secrets
from itertools import islice

from django.apps import apps
from django.conf import settings
from pymongo import UpdateOne

from shop import clock

# Carts whose reservations must stay: the shopper is shopping or paying.
LIVE_STATUSES = ("active", "pending")
# Carts that expiry may take: active ones only. A pending cart's payment may
# have been taken; only reconcile_payments (orders.reconcile) settles it,
# finishing its order or refunding and unlocking it.
EXPIRABLE_STATUSES = ("active",)
# Documents per bulk write, ``$in`` list or cursor batch in the passes over many carts or reservations.
BATCH_SIZE = 1000
# Carts grouped by SKU per pass of an expiry: each inventory document is rewritten once per chunk.
EXPIRY_CHUNK = 50_000


def batched(iterable, size):
    """Lists of at most ``size`` items from ``iterable``."""
    iterator = iter(iterable)
    while batch := list(islice(iterator, size)):
        yield batch


def return_entry(cart_id, sku, qty):
    """The filter and update (a pair) that give back cart ``cart_id``'s reservation of ``sku``
    to ``qty``, matching only while that reservation holds ``qty`` units."""
    return ({"_id": sku, "carted": {"$elemMatch": {"cart_id": cart_id, "qty": qty}}},
            {"$inc": {"qty": qty}, "$pull": {"carted": {"cart_id": cart_id}}})


def _carts():
    """``Cart.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Cart").objects


def _stock():
    """``Inventory.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Inventory").objects


class CartExpiry:
    """Expiry of carts, mixed into ``CartManager`` (its ``collection`` is ``carts``)."""

    # -- seed 003 "Returning Inventory from Timed-Out Carts" -------------

    def reclaim_abandoned(self, sku, timeout=None):
        """Expire the live carts holding a reservation of ``sku`` that have been idle for
        ``timeout`` seconds (default ``settings.CART_TIMEOUT``), returning their stock.

        Seed 003 "Returning Inventory from Timed-Out Carts", narrowed to the
        carts holding one SKU: one read of the SKU's reservations, then, only
        when some are older than the timeout, the carts that are really idle
        (their ``last_modified``, not the reservation's time, decides) are
        expired as ``expire`` does. Returns how many carts were expired.
        """
        timeout = settings.CART_TIMEOUT if timeout is None else timeout
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        stale = _stock().reserved_before(sku, threshold)
        if not stale:
            return 0
        run = secrets.token_hex(8)
        self.collection.update_many(
            {"_id": {"$in": stale}, "status": {"$in": list(EXPIRABLE_STATUSES)},
             "last_modified": {"$lt": threshold}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        return self._finish_expiring(run)["expired"]

    def expire(self, timeout, progress=None):
        """Seed 003 ``expire_carts``: expire carts unchanged for ``timeout`` seconds, return their stock.

        1. One ``update_many`` adopts the carts left ``expiring`` by a run
           that crashed (older than the threshold), tagging them with this
           run's random ``expiry_run``; a second one marks the active carts
           older than the threshold ``expiring``, with the same tag (never a
           pending one: a checkout that crashed after its lock is
           ``reconcile_payments``' to settle).
        2. One read streams this run's carts, grouped by SKU ``EXPIRY_CHUNK``
           carts at a time; each SKU's document gets back all their
           reservations in one write (``Inventory.objects.return_reservations``:
           a compare-and-set of its ``carted`` array as read, so nothing is
           returned twice): the writes grow with the SKUs touched, not the carts.
        3. One ``update_many`` makes this run's carts ``expired``.

        The tag keeps every step one indexed pass, without lists of ids (a
        concurrent run that adopts a cart takes over its expiry). Safe to run
        twice or concurrently. Returns ``{'expired': n, 'returned': n}``
        (carts, reservations). A reservation made after its SKU was written
        (an add in flight) is returned by ``cleanup_inventory``. ``progress(n)``,
        when given, is called as carts are done (``n`` carts each time).
        """
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        run = secrets.token_hex(8)
        # Adopt first: it then examines only the carts a crashed run left, not this run's.
        self.collection.update_many(
            {"status": "expiring", "last_modified": {"$lt": threshold}, "expiry_run": {"$ne": run}},
            {"$set": {"expiry_run": run}},
        )
        self.collection.update_many(
            {"status": {"$in": list(EXPIRABLE_STATUSES)}, "last_modified": {"$lt": threshold}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        if progress is None:
            return self._finish_expiring(run)
        return self._finish_expiring(run, progress=progress)

    def expire_cart(self, cart_id):
        """Expire the cart ``cart_id`` now (for staff), returning its stock. True when it was active
        (a pending cart is left to ``reconcile_payments``: its payment may be taken)."""
        run = secrets.token_hex(8)
        locked = self.collection.update_one(
            {"_id": cart_id, "status": {"$in": list(EXPIRABLE_STATUSES)}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        self._finish_expiring(run)
        return bool(locked.matched_count)

    def _finish_expiring(self, run, *, progress=None):
        """Return the stock of the carts tagged ``run`` and make them ``expired`` (see ``expire``).

        The carts are streamed (one read) and grouped by SKU, ``EXPIRY_CHUNK``
        carts at a time (bounded memory); each chunk's reservations go back
        with one write per SKU (``Inventory.objects.return_reservations``).
        ``progress(n)``, when given, is called after each chunk with its number of carts.
        """
        returned = 0
        cursor = self.collection.find(
            {"status": "expiring", "expiry_run": run}, {"items.sku": 1}, batch_size=BATCH_SIZE
        )
        for chunk in batched(cursor, EXPIRY_CHUNK):
            by_sku = {}
            for cart in chunk:
                for line in cart.get("items", []):
                    by_sku.setdefault(line["sku"], set()).add(cart["_id"])
            returned += _stock().return_reservations(by_sku)
            if progress is not None:
                progress(len(chunk))
        expired = self.collection.update_many(
            {"status": "expiring", "expiry_run": run},
            {"$set": {"status": "expired", "last_modified": clock.now()}},
        ).modified_count
        return {"expired": expired, "returned": returned}


class ReservationCleanup:
    """Seed 003's ``cleanup_inventory``, mixed into ``InventoryManager`` (its ``collection`` is ``inventory``)."""

    def _stale_entries(self, threshold):
        """``(sku, entry)`` for every reservation made before ``threshold``, streamed (one read)."""
        cursor = self.collection.find({"carted.timestamp": {"$lt": threshold}}, {"carted": 1},
                                      batch_size=100)
        for document in cursor:
            for entry in document.get("carted", []):
                if clock.aware(entry["timestamp"]) < threshold:
                    yield document["_id"], entry

    def cleanup(self, timeout, progress=None):
        """Seed 003 ``cleanup_inventory``: settle reservations older than ``timeout`` seconds.

        Reads the stale reservations (``carted.timestamp`` below the
        threshold) and the status and SKUs of their carts, then with one
        ``bulk_write`` per kind and batch: refreshes the timestamp of those
        whose cart is active or pending and still has a line for the SKU
        (first pass); drops those of complete carts without returning them
        (the units are sold: checkout crashed before its pull); returns the
        others (cart expired, expiring or gone, or a live cart without the
        line: a removal that crashed halfway) to ``qty``, each with a
        write conditional on the entry still holding that quantity, so a
        concurrent ``expire_carts`` or a second run cannot return it twice.
        One streamed pass over the inventory documents holding stale
        reservations, settled ``BATCH_SIZE`` reservations at a time (bounded
        memory: 1 read of their carts, at most 3 bulk writes); ``progress(n)``,
        when given, is called after each batch with its number of reservations.
        Returns ``{'refreshed': n, 'sold': n, 'returned': n}`` (reservations).
        """
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        moment = clock.now()
        report = {"refreshed": 0, "sold": 0, "returned": 0}
        for batch in batched(self._stale_entries(threshold), BATCH_SIZE):
            carts = _carts().statuses_and_skus({entry["cart_id"] for _, entry in batch})
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
                    writes["returned"].append(UpdateOne(*return_entry(cart_id, sku, entry["qty"])))
            # One bulk per kind, so that each kind's count is that bulk's own.
            for kind, kind_writes in writes.items():
                if kind_writes:
                    report[kind] += self.collection.bulk_write(kind_writes, ordered=False).modified_count
            if progress is not None:
                progress(len(batch))
        return report
