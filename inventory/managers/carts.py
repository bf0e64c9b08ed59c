"""``Cart.objects``: the "Inventory Management" use case's ``carts`` collection, and the cart side of each cart change.

``{_id, status, created_at, last_modified, items: [{sku, qty, details: {title, price}}],
user_id, ...}``. Every change a shopper makes is a pair of conditional
single-document updates, one on the cart here and one on the SKU's inventory
document, which this manager asks ``Inventory.objects`` for (reserve, change,
release: ``stock.py``), so that no two shoppers can take the same unit. When
the second update is refused the first is rolled back, as the source
prescribes. What a crash between the two leaves behind (a reservation
without its cart line, or a cart line without its reservation) is repaired
by ``cleanup_inventory`` and noticed by checkout (``orders.checkout``), which
compares the cart with its reservations before it charges.

Bugs of the source fixed (docs/operations.md): expiry reads the cart's ``_id``;
adding a SKU already in the cart raises its line's quantity. Views, commands
and admin classes call these methods; none of them builds a pymongo query.

No write here is a ``find_one_and_update``: SecantusDB reads the whole
(docs/local-server-differences.md: local-server difference 3)
collection on every findAndModify, and ``carts`` holds every cart kept
(docs/local-server.md). A write that needs the cart afterwards is a
conditional ``update_one`` by ``_id`` and a read; one that needs the line
before it is a compare-and-set (read the line, then an ``update_one`` whose
filter holds what was read, tried again when it matched nothing).
"""

from django.apps import apps
from django.db import models

from core import clock
from core.mongo.collections import MongoCollectionMixin
from core.mongo.writes import carries, write_once

from ..exceptions import CartInactive, InadequateInventory, LineLimit, NotInCart, ReservationConflict, UnknownSku


def _stock():
    """``Inventory.objects``, from the app registry (``inventory.models`` imports this module)."""
    return apps.get_model("inventory", "Inventory").objects


class CartManager(MongoCollectionMixin, models.Manager):
    """The "Inventory Management" use case's cart operations on the ``carts`` collection (see the module docstring).

    Expiry (``expire``, ``expire_cart``, ``reclaim_abandoned``) is ``Cart.expiry``
    (``expiry.CartExpiryManager``), retention (``purge``) ``Cart.retention``
    (``retention.CartRetentionManager``).
    """

    # -- reads ---------------------------------------------------------

    def get_cart(self, cart_id):
        """The cart ``cart_id`` (one read), or None when there is none (any status)."""
        if not isinstance(cart_id, str) or not cart_id:
            return None
        document = self.collection.find_one({"_id": cart_id})
        return None if document is None else self.from_document(document)

    def statuses(self, cart_ids):
        """``{cart_id: status}`` of the carts among ``cart_ids`` that exist (one read)."""
        cursor = self.collection.find({"_id": {"$in": list(cart_ids)}}, {"status": 1})
        return {d["_id"]: d["status"] for d in cursor}

    def statuses_and_skus(self, cart_ids):
        """``{cart_id: (status, {sku, ...})}`` of the carts among ``cart_ids`` that exist (one read)."""
        cursor = self.collection.find({"_id": {"$in": list(cart_ids)}}, {"status": 1, "items.sku": 1})
        return {d["_id"]: (d["status"], {line["sku"] for line in d.get("items", [])}) for d in cursor}

    # -- the cart merge at log-in (inventory.merge) -------------------

    def active_cart_of(self, user_id):
        """The raw document of account ``user_id``'s active cart (the newest), or None (one read)."""
        cursor = self.collection.find({"user_id": str(user_id), "status": "active"}).sort(
            "last_modified", -1).limit(1)
        return next(iter(cursor), None)

    def claim(self, cart_id, user_id):
        """Give the active guest cart ``cart_id`` to account ``user_id``; its raw document, or None (one write).

        Only a guest's cart (no ``user_id``) or one the account already has:
        a replayed session naming another account's cart takes nothing.
        """
        if not isinstance(cart_id, str) or not cart_id:
            return None
        return self._update_and_read(
            {"_id": cart_id, "status": "active", "user_id": {"$in": ["", None, str(user_id)]}},
            {"$set": {"user_id": str(user_id), "last_modified": clock.now()}})

    def _update_and_read(self, query, update):
        """One conditional ``update_one`` (``query`` names the cart by ``_id``) and, when it
        matched, a read of the cart afterwards: its raw document, or None (nothing matched)."""
        if not self.collection.update_one(query, update).matched_count:
            return None
        return self.collection.find_one({"_id": query["_id"]})

    def lock_for_merge(self, cart_id, into):
        """active -> merging for cart ``cart_id`` (about to be combined into cart ``into``).

        One conditional write; returns the raw document, or None when the
        cart is not an active guest cart (nothing to combine; another
        account's cart is never taken). Adds to it are refused
        from here on (``CartInactive``).
        """
        if not isinstance(cart_id, str) or not cart_id:
            return None
        return self._update_and_read(
            {"_id": cart_id, "status": "active", "user_id": {"$in": ["", None]}},
            {"$set": {"status": "merging", "merged_into": into}})

    def unlock_merge(self, cart_id):
        """merging -> active again (the combination was abandoned): one conditional write."""
        self.collection.update_one({"_id": cart_id, "status": "merging"},
                                   {"$set": {"status": "active", "last_modified": clock.now()},
                                    "$unset": {"merged_into": ""}})

    def finish_merge(self, cart_id):
        """merging -> merged: the cart's lines now live in the other cart (one conditional write)."""
        self.collection.update_one({"_id": cart_id, "status": "merging"},
                                   {"$set": {"status": "merged", "last_modified": clock.now()}})

    def replace_items(self, cart_id, expected, items):
        """Set the lines of active cart ``cart_id`` to ``items`` if they are still ``expected``.

        ``expected`` is the ``items`` array as read (compare-and-set on the
        whole array, so a concurrent add or change makes this match
        nothing). One write; True when written.
        """
        return bool(self.collection.update_one(
            {"_id": cart_id, "status": "active", "items": expected},
            {"$set": {"items": items, "last_modified": clock.now()}},
        ).modified_count)

    def shrink_line(self, cart_id, sku, qty):
        """Take ``qty`` units off the line of ``sku`` (dropping it at 0), whatever the cart's status.

        Undoes a line change whose reservation did not follow (2 writes).
        """
        self.collection.update_one({"_id": cart_id, "items.sku": sku}, {"$inc": {"items.$.qty": -qty}})
        self.collection.update_one({"_id": cart_id}, {"$pull": {"items": {"qty": {"$lte": 0}}}})

    # -- the "Inventory Management" use case "Add an Item", "Modifying the Quantity" ----------------

    def create_cart(self, user_id=""):
        """Start an empty active cart with an unguessable id; returns the Cart (one write).

        ``user_id``: the account of a signed-in shopper ("" for a guest).
        """
        moment = clock.now()
        # The id is the model's default (``inventory.models.new_cart_id``).
        document = {"_id": self.model._meta.pk.get_default(), "status": "active", "last_modified": moment, "items": [],
                    "user_id": str(user_id or ""), "created_at": moment}
        self.collection.insert_one(document)
        return self.model(id=document["_id"], status="active", last_modified=moment, items=[],
                          user_id=document["user_id"], created_at=moment)

    @staticmethod
    def _units(document):
        return sum(line["qty"] for line in (document or {}).get("items", []))

    def _refusal(self, cart_id, sku, max_qty=None):
        """The error for a cart write that matched nothing (one read): inactive, no line, too many."""
        document = self.collection.find_one(
            {"_id": cart_id}, {"status": 1, "items": {"$elemMatch": {"sku": sku}}}
        )
        if document is None or document["status"] != "active":
            return CartInactive(status=None if document is None else document["status"])
        lines = document.get("items") or []
        if not lines:
            return NotInCart(sku)
        if max_qty is not None:
            return LineLimit(sku, max_qty)
        return ReservationConflict(sku)

    def _inventory_refusal(self, sku, wanted):
        """The error for an inventory write that matched nothing (one read)."""
        available = _stock().available(sku)
        if available is None:
            return UnknownSku(sku)
        if available < wanted:
            return InadequateInventory(sku, available)
        return ReservationConflict(sku)

    def _reserve(self, sku, write):
        """Run ``write()``, a reservation write of ``sku`` on ``Inventory.objects`` (True when it
        applied); when refused, reclaim the SKU's reservations held by abandoned carts
        (``reclaim_abandoned``) and try once more. True when the write applied.

        So on any set-up, with or without ``expire_carts`` in cron, an
        abandoned cart never blocks a sale: 1 write, or when short of stock
        1 read (+ the expiry of the abandoned carts and 1 write when there are some).
        """
        if write():
            return True
        if not self.model.expiry.reclaim_abandoned(sku):
            return False
        return write()

    def _follow_line(self, cart_id, sku, delta, moment):
        """Move the reservation of ``sku`` by ``delta`` units after its cart line moved by ``delta``
        (``Inventory.objects.change_reservation``, through ``_reserve``). When refused, the line
        takes ``delta`` back (one more write) and the refusal is raised."""
        if self._reserve(sku, lambda: _stock().change_reservation(cart_id, sku, delta, moment)):
            return
        self.collection.update_one(
            {"_id": cart_id, "status": {"$ne": "complete"}, "items.sku": sku},
            {"$inc": {"items.$.qty": -delta}},
        )
        raise self._inventory_refusal(sku, delta)

    def add_item(self, cart_id, sku, qty, details, max_qty):
        """Put ``qty`` units of ``sku`` in the cart: the "Inventory Management" use case ``add_item_to_cart``, the source's bug fixed.

        ``details`` is ``{'title': str, 'price': cents}``; ``max_qty`` caps
        the line's quantity. A SKU not yet in the cart costs 2 writes: the
        cart gets the line (only while active and without a line for this
        SKU), then ``Inventory.objects.reserve`` takes the units (only while
        ``qty`` covers them) and records the reservation; when refused, a
        third write rolls the cart back. A SKU already in the cart raises its
        line's quantity instead (3 writes: the push is tried first).
        Returns the number of units in the cart afterwards. Raises
        ``CartInactive``, ``InadequateInventory``, ``UnknownSku``,
        ``LineLimit``, ``ReservationConflict``; nothing is changed then.
        """
        moment = clock.now()
        line = {"sku": sku, "qty": qty, "details": {"title": details["title"], "price": details["price"]}}
        pushed = self.collection.update_one(
            {"_id": cart_id, "status": "active", "items.sku": {"$ne": sku}},
            {"$set": {"last_modified": moment}, "$push": {"items": line}},
        ).matched_count
        if pushed:
            reserved = self._reserve(sku, lambda: _stock().reserve(cart_id, sku, qty, moment))
            if not reserved:
                self.collection.update_one(
                    {"_id": cart_id, "status": {"$ne": "complete"}}, {"$pull": {"items": {"sku": sku}}}
                )
                raise self._inventory_refusal(sku, qty)
            return self._units_now(cart_id)

        # The SKU is in the cart already (or the cart is not active): raise the line's quantity.
        raised = self.collection.update_one(
            {"_id": cart_id, "status": "active",
             "items": {"$elemMatch": {"sku": sku, "qty": {"$lte": max_qty - qty}}}},
            {"$set": {"last_modified": moment}, "$inc": {"items.$[line].qty": qty}},
            array_filters=[{"line.sku": sku}],
        ).matched_count
        if not raised:
            raise self._refusal(cart_id, sku, max_qty=max_qty)
        self._follow_line(cart_id, sku, qty, moment)
        return self._units_now(cart_id)

    def _units_now(self, cart_id):
        """The units in cart ``cart_id`` as it is now (one read, projected to the quantities)."""
        return self._units(self.collection.find_one({"_id": cart_id}, {"items.qty": 1}))

    def _line_as_read(self, cart_id, sku):
        """``(cart, line)``: cart ``cart_id``'s raw document (status and lines) and its line of
        ``sku`` (one read); ``(None, None)`` when the cart is not active or has no such line."""
        cart = self.collection.find_one({"_id": cart_id}, {"status": 1, "items": 1})
        if cart is None or cart["status"] != "active":
            return None, None
        line = next((line for line in cart.get("items", []) if line["sku"] == sku), None)
        return (cart, line) if line is not None else (None, None)

    def update_quantity(self, cart_id, sku, qty):
        """Set the quantity of the cart's line of ``sku`` to ``qty``: the "Inventory Management" use case ``update_quantity``.

        ``qty`` 0 removes the line (``remove_item``). The cart line changes
        first (only while the cart is active), returning its old quantity;
        then ``Inventory.objects.change_reservation`` moves the difference
        ``delta`` (only while ``qty`` covers an increase) into the reservation.
        Both sides move by the same ``delta`` taken from the
        before-image of the line, so concurrent changes of one line add up
        the same in the cart and in the reservation: the before-image is a
        compare-and-set (a read of the line, then an ``update_one`` matching
        only while the line still holds the quantity read, read and tried
        again when it does not). A refusal takes ``delta`` back off the line.
        1 read and 2 writes (3 with the rollback). Returns the number of units in the cart afterwards.
        Raises ``CartInactive``, ``NotInCart``, ``InadequateInventory``,
        ``ReservationConflict``; nothing is changed then.
        """
        if qty == 0:
            return self.remove_item(cart_id, sku)
        moment = clock.now()
        while True:
            before, line = self._line_as_read(cart_id, sku)
            if line is None:
                raise self._refusal(cart_id, sku)
            old = line["qty"]
            if self.collection.update_one(
                    {"_id": cart_id, "status": "active", "items": {"$elemMatch": {"sku": sku, "qty": old}}},
                    {"$set": {"last_modified": moment, "items.$[line].qty": qty}},
                    array_filters=[{"line.sku": sku}]).matched_count:
                break
        units = self._units(before) - old + qty
        delta = qty - old
        if delta == 0:
            return units
        self._follow_line(cart_id, sku, delta, moment)
        return units

    def remove_item(self, cart_id, sku):
        """Take the line of ``sku`` out of the cart and return its reservation to stock.

        The cart line is pulled first (only while active), then
        ``Inventory.objects.release`` returns the reservation (only while it
        holds the line's quantity). A
        line that has no reservation at all (an earlier add crashed between
        its two writes) is simply removed. A reservation holding another
        quantity (a change in flight) puts the line back and raises
        ``ReservationConflict``. The line is taken by compare-and-set (a read,
        then an ``update_one`` matching only while the line holds the quantity
        read, read and tried again when it does not): 1 read and 2 writes.
        Returns the number of units in the cart afterwards. Raises
        ``CartInactive``, ``NotInCart``.
        """
        moment = clock.now()
        while True:
            before, line = self._line_as_read(cart_id, sku)
            if line is None:
                raise self._refusal(cart_id, sku)
            if self.collection.update_one(
                    {"_id": cart_id, "status": "active", "items": {"$elemMatch": {"sku": sku, "qty": line["qty"]}}},
                    {"$set": {"last_modified": moment}, "$pull": {"items": {"sku": sku}}}).matched_count:
                break
        units = self._units(before) - line["qty"]
        if _stock().release(cart_id, sku, line["qty"]) or not _stock().holds(cart_id, sku):
            return units
        self.collection.update_one(
            {"_id": cart_id, "status": {"$ne": "complete"}, "items.sku": {"$ne": sku}},
            {"$push": {"items": line}},
        )
        raise ReservationConflict(sku)

    # -- checkout's status changes (the checkout itself: orders.checkout) ---

    def lock_for_checkout(self, cart_id, payment_key):
        """active -> pending: the cart goes to checkout and refuses changes (one conditional write).

        ``payment_key`` (the payment attempt's idempotency key, ``orders.managers.ledger``)
        is set on the cart in the same write: from here on only that attempt
        may complete or unlock it. Returns the raw cart document afterwards,
        or None when the cart is not active (expired, in checkout, complete)
        or does not exist. An ``update_one`` by ``_id`` and a read (2 round
        trips). After a dropped connection the lock counts as taken when the
        cart is pending for ``payment_key`` (a key only this attempt holds).
        """
        changes = {"status": "pending", "payment_key": payment_key, "last_modified": clock.now()}
        locked = write_once(
            lambda: self.collection.update_one({"_id": cart_id, "status": "active"},
                                               {"$set": changes}).matched_count,
            lambda: carries(self.collection.find_one({"_id": cart_id}, {"status": 1, "payment_key": 1}),
                            {"status": "pending", "payment_key": payment_key}))
        return self.collection.find_one({"_id": cart_id}) if locked else None

    def reprice_held(self, cart_id, payment_key, items):
        """Set the lines of cart ``cart_id``, held by checkout for the attempt ``payment_key``, to
        ``items`` (the same lines at the catalog's current prices): True when written.

        One ``update_one`` by ``_id``, conditional on the cart being pending
        for that attempt (no one else may change its lines meanwhile); not a
        findAndModify, which scans the whole collection on SecantusDB 0.7.0b3.
        """
        return bool(self.collection.update_one(
            {"_id": cart_id, "status": "pending", "payment_key": payment_key},
            {"$set": {"items": items}},
        ).matched_count)

    def unlock_checkout(self, cart_id, payment_key):
        """pending -> active again (payment declined or never taken, cart changed): one conditional
        write, only while the cart is pending for the attempt ``payment_key``. True when it moved."""
        done = self.collection.update_one(
            {"_id": cart_id, "status": "pending", "payment_key": payment_key},
            {"$set": {"status": "active", "last_modified": clock.now()}, "$unset": {"payment_key": ""}},
        )
        return bool(done.modified_count)

    def finish_checkout(self, cart_id, customer_name, customer_email, payment_reference, payment_key):
        """pending -> complete for the attempt ``payment_key``; True when the cart is complete for it.

        One conditional write (a second read only when it matched nothing, to
        tell "already completed by this attempt", which is True, from "taken
        by something else", which is False). The cart's units are sold from here on.
        """
        def completed():
            return self.collection.find_one(
                {"_id": cart_id, "status": "complete", "payment_key": payment_key}, {"_id": 1}) is not None

        # A dropped connection: the write counts as done when the cart is complete for this attempt.
        done = write_once(lambda: self.collection.update_one(
            {"_id": cart_id, "status": "pending", "payment_key": payment_key},
            {"$set": {"status": "complete", "last_modified": clock.now(), "customer_name": customer_name,
                      "customer_email": customer_email, "payment_reference": payment_reference}},
        ).matched_count, completed)
        return bool(done) or completed()

    def pending_before(self, threshold):
        """``[(cart_id, payment_key or None)]`` of the carts pending since before ``threshold``
        (an aware UTC datetime): checkouts that may have crashed (one indexed read)."""
        cursor = self.collection.find(
            {"status": "pending", "last_modified": {"$lt": threshold}}, {"payment_key": 1})
        return [(document["_id"], document.get("payment_key")) for document in cursor]

    def held_for(self, cart_id, payment_key):
        """True when cart ``cart_id`` is pending or complete for the payment attempt ``payment_key``
        (one read): its units are still held for that payment, or sold by it."""
        return self.collection.find_one(
            {"_id": cart_id, "status": {"$in": ["pending", "complete"]}, "payment_key": payment_key},
            {"_id": 1}) is not None
