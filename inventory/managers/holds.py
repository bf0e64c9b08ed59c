"""What one client may hold: allowances counted per client address, raw pymongo.

A shopper's reservations are bounded per cart line (``CART_MAX_LINE_QTY``),
but a script without cookies gets a new session, so a new cart, on every
request, and could hold every unit of the shop. ``ClientHolds`` counts, per
client address, the units of each SKU it put in carts and the carts it
opened, each count capped (``CART_MAX_SKU_UNITS_PER_CLIENT``,
``CART_MAX_OPEN_CARTS_PER_CLIENT``). A count lives as long as a cart does
(``CART_TIMEOUT`` after the client's last add: by then its carts have
expired, and ``expire_carts`` or the reclaim at the next shortage has put
the units back on the shelf); units taken out of a cart are given back at
once. Checkout does not give units back: bought units count until that
window ends (a shopper buying the cap of one SKU twice within it waits).

One document per count, in the ``client_holds`` collection::

    {_id: "units|<address>|<sku>" or "carts|<address>", n: int, until: datetime UTC}

``take`` is one conditional write ("Inventory Management" use case's pattern: the condition
``n <= cap - amount`` is part of the update, so threads and processes
cannot take more than the cap together), at most three when the document
is new or stale. Every filter names the ``_id`` and no top-level operator,
so every server uses its ``_id`` index.
"""

from datetime import timedelta

from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo import get_collection

COLLECTION = "client_holds"


def units_key(address, sku):
    """The count of units of ``sku`` held by ``address`` (str)."""
    return f"units|{address}|{sku}"


def carts_key(address):
    """The count of carts opened by ``address`` (str)."""
    return f"carts|{address}"


class ClientHolds:
    """The allowances of ``client_holds``; ``collection``: a pymongo collection (default the shop's)."""

    def __init__(self, collection=None):
        self.collection = collection if collection is not None else get_collection(COLLECTION)

    def take(self, key, amount, cap, lifetime):
        """Count ``amount`` (int > 0) more under ``key`` when the count stays within ``cap``.

        ``lifetime``: seconds the count lives after this take (a count older than
        that starts again from zero). Returns True when taken, False (nothing
        changed) when the count would pass ``cap``.
        """
        if amount > cap:
            return False
        now = clock.now()
        until = now + timedelta(seconds=lifetime)
        # A count whose carts have all expired starts again.
        if self.collection.update_one({"_id": key, "until": {"$lt": now}},
                                      {"$set": {"n": amount, "until": until}}).matched_count:
            return True
        within = {"_id": key, "n": {"$lte": cap - amount}}
        change = {"$inc": {"n": amount}, "$set": {"until": until}}
        try:
            # No document yet: the upsert makes it. A document over the cap does not match,
            # so the upsert tries to insert its _id again and the unique _id refuses it.
            self.collection.update_one(within, change, upsert=True)
            return True
        except DuplicateKeyError:
            # Over the cap, or another request made the document at the same moment.
            return self.collection.update_one(within, change).matched_count == 1

    def give_back(self, key, amount):
        """Uncount ``amount`` (int > 0) under ``key``, never below zero (one or two writes)."""
        if self.collection.update_one({"_id": key, "n": {"$gte": amount}}, {"$inc": {"n": -amount}}).matched_count:
            return
        self.collection.update_one({"_id": key, "n": {"$lt": amount}}, {"$set": {"n": 0}})

    def count(self, key):
        """The current count under ``key`` (0 when none or stale); one read."""
        document = self.collection.find_one({"_id": key}, {"n": 1, "until": 1})
        if document is None or clock.aware(document["until"]) < clock.now():
            return 0
        return document["n"]
