"""What the expiry and the cleanup of carts share: which carts are live, the batch sizes, and the
one write that returns a reservation to the shelf.

The expiry (``expiry.CartExpiry``), the clean-up (``cleanup.ReservationCleanup``), the
expiry's grouped returns (``returns``) and the invariant check (``inventory.invariant``)
read these; tests may change the sizes (``rules.BATCH_SIZE``...).
"""

from itertools import islice

from core import clock

# Carts whose reservations must stay: the shopper is shopping or paying.
LIVE_STATUSES = ("active", "pending")
# Carts that expiry may take: active ones only. A pending cart's payment may
# have been taken; only reconcile_payments (orders.reconcile) settles it,
# finishing its order or refunding and unlocking it.
EXPIRABLE_STATUSES = ("active",)
# What an expiry run's write takes: the expirable carts, and the carts an earlier version's run
# left ``expiring`` when it crashed (that version marked carts ``expiring``, then ``expired``).
TAKEN_STATUSES = (*EXPIRABLE_STATUSES, "expiring")
# Documents per bulk write or cursor batch in the passes over many carts or reservations.
BATCH_SIZE = 1000
# Cart ids per ``{_id: {$in: ids}}`` read of carts (cleanup, check_inventory). The local SecantusDB
# (docs/local-server-differences.md: local-server difference 20)
# server matches ``$in`` by comparing each document it finds with every listed value in Python: a
# read of n ids costs n * n comparisons (about 0.45 s for 1,000 ids; MongoDB looks each id up).
# 100 ids per read cost a tenth of that there, and only more round trips on MongoDB.
IDS_PER_READ = 100
def batched(iterable, size):
    """Lists of at most ``size`` items from ``iterable``."""
    iterator = iter(iterable)
    while batch := list(islice(iterator, size)):
        yield batch


def return_entry(cart_id, sku, qty, timestamp=None):
    """The filter and update (a pair) that give back cart ``cart_id``'s reservation of ``sku``
    to ``qty``, matching only while that reservation holds ``qty`` units.

    ``timestamp`` (the entry's, as read) narrows the match to that very entry:
    ``cleanup`` decides from reads made before its write, and in between the
    shopper may have released the entry and reserved the same quantity again
    (a new entry, a new timestamp) and checked out; returning that one would
    sell its units and put them back on the shelf too.
    """
    entry = {"cart_id": cart_id, "qty": qty}
    if timestamp is not None:
        entry["timestamp"] = timestamp
    return ({"_id": sku, "carted": {"$elemMatch": entry}},
            {"$inc": {"qty": qty}, "$pull": {"carted": {"cart_id": cart_id}}})


def started(document):
    """When the cart ``document`` (raw) was started, aware UTC: its ``created_at``, or for a cart
    from before creation times were recorded, its ``last_modified`` (the latest moment known)."""
    return clock.aware(document.get("created_at") or document.get("last_modified"))
