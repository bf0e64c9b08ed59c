"""The inventory's MongoDB operations (seed 003), as raw pymongo.

Every change a shopper makes is a pair of conditional single-document
updates, one on the cart and one on the SKU's inventory document, so that no
two shoppers can take the same unit: the inventory update only matches while
``qty`` covers the request (``{'qty': {'$gte': n}}``). When the second update
fails the first is rolled back, as the seed prescribes. What a crash between
the two leaves behind (a reservation without its cart line, or a cart line
without its reservation) is repaired by ``cleanup_inventory`` and noticed by
checkout, which compares the cart with its reservations before it charges.

Fixed seed bugs (DESIGN.md): checkout pulls ``{'carted': {'cart_id': id}}``;
expiry reads the cart's ``_id``; ``update_quantity`` sets
``carted.$.timestamp``; cleanup keeps the carted entry apart from the cart;
adding a SKU already in the cart raises its line's quantity. Conditions on
two fields of one ``carted`` entry use ``$elemMatch`` (the seed's
``{'carted.cart_id': c, 'carted.qty': q}`` can match two different entries).
Cleanup never returns the reservation of a *complete* cart to stock: those
units are sold, and the entry is only dropped.

Views, commands and admin classes call these methods; none of them builds a
pymongo query itself.
"""

import datetime
import secrets
from itertools import islice

from django.conf import settings
from django.db import models
from pymongo import ReturnDocument, UpdateOne

from shop import clock
from shop.mongo.collections import MongoCollectionMixin


class InventoryError(Exception):
    """A cart or stock change that was refused; ``str()`` is a message fit for a shopper or staff."""


class CartInactive(InventoryError):
    """The cart is no longer active (expired, in checkout, complete) or does not exist."""

    def __init__(self, message="Your cart has expired. A new one has been started."):
        super().__init__(message)


class InadequateInventory(InventoryError):
    """Not enough available stock; ``available`` is how many units were left (int)."""

    def __init__(self, sku, available):
        self.sku = sku
        self.available = max(available, 0)
        if self.available:
            message = f"Only {self.available} left of {sku}."
        else:
            message = f"{sku} is out of stock."
        super().__init__(message)


class UnknownSku(InventoryError):
    """No inventory document for this SKU: it is not sold (yet)."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} is not for sale.")


class NotInCart(InventoryError):
    """The cart has no line for this SKU."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} is not in your cart.")


class CartChanged(InventoryError):
    """The cart's lines and its reservations differ (a change in flight): checkout refused, retry."""

    def __init__(self):
        super().__init__("Your cart was changing while you checked out. Please review it and try again.")


class ReservationConflict(InventoryError):
    """A reservation did not hold the quantity its cart line says (a change in flight); retry."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} was being changed at the same moment. Please try again.")


class LineLimit(InventoryError):
    """A line would hold more than the per-line maximum (``settings.CART_MAX_LINE_QTY``)."""

    def __init__(self, sku, max_qty):
        self.sku = sku
        self.max_qty = max_qty
        super().__init__(f"At most {max_qty} of {sku} in one cart line.")


class EmptyCart(InventoryError):
    """Checkout of a cart without lines."""

    def __init__(self):
        super().__init__("Your cart is empty.")


class StockError(InventoryError):
    """A stock change staff asked for that is refused (below zero, unknown SKU)."""


def batched(iterable, size):
    """Lists of at most ``size`` items from ``iterable``."""
    iterator = iter(iterable)
    while batch := list(islice(iterator, size)):
        yield batch


# Carts whose reservations must stay: the shopper is shopping or paying.
LIVE_STATUSES = ("active", "pending")
BATCH_SIZE = 1000


class InventoryManager(MongoCollectionMixin, models.Manager):
    """Stock of each SKU: seed 003's ``inventory`` collection."""

    # -- reads ---------------------------------------------------------

    def available(self, sku):
        """Units of ``sku`` still available (int), or None when the SKU has no inventory document."""
        document = self.collection.find_one({"_id": str(sku)}, {"qty": 1})
        return None if document is None else document["qty"]

    def available_many(self, skus):
        """``{sku: available units}`` for the SKUs of ``skus`` that have stock documents (one read)."""
        cursor = self.collection.find({"_id": {"$in": [str(s) for s in skus]}}, {"qty": 1})
        return {d["_id"]: d["qty"] for d in cursor}

    def stock_many(self, skus):
        """``{sku: (available, reserved)}`` for the SKUs of ``skus`` that have stock documents
        (one read; reserved = units held in carts). The admin's product list uses it."""
        cursor = self.collection.find({"_id": {"$in": [str(s) for s in skus]}}, {"qty": 1, "carted.qty": 1})
        return {d["_id"]: (d["qty"], sum(e["qty"] for e in d.get("carted", []))) for d in cursor}

    def skus_available(self, at_least=1, at_most=None):
        """The SKUs with ``at_least`` to ``at_most`` (None: no bound) units available (one read).

        The admin's product availability filter uses it.
        """
        bounds = {"$gte": int(at_least)}
        if at_most is not None:
            bounds["$lte"] = int(at_most)
        return [d["_id"] for d in self.collection.find({"qty": bounds}, {"_id": 1})]

    def reservations_of(self, cart_id):
        """``{sku: reserved qty}`` held for ``cart_id`` (one read, through ``carted.cart_id``)."""
        cursor = self.collection.find(
            {"carted.cart_id": cart_id}, {"carted": {"$elemMatch": {"cart_id": cart_id}}}
        )
        return {d["_id"]: sum(e["qty"] for e in d.get("carted", [])) for d in cursor}

    # -- stock for operators and staff ----------------------------------

    def ensure_stock(self, skus, qty):
        """Give every SKU of ``skus`` an inventory document with ``qty`` units, unless it has one.

        Never changes an existing document (``$setOnInsert`` upserts in one
        ``bulk_write``), so ``load_catalog`` can run again. Returns the number
        of documents created. Raises ``StockError`` for a negative ``qty``.
        """
        if qty < 0:
            raise StockError("A starting stock cannot be negative.")
        writes = [
            UpdateOne(
                {"_id": sku},
                {"$setOnInsert": {"qty": qty, "stocked": qty, "carted": []}},
                upsert=True,
            )
            for sku in skus
        ]
        if not writes:
            return 0
        return self.collection.bulk_write(writes, ordered=False).upserted_count

    def restock(self, sku, qty):
        """Add ``qty`` (> 0) units of ``sku`` to the available stock; creates its document if missing.

        One write. Returns the available quantity afterwards. Raises
        ``StockError`` for ``qty`` below 1. (The SKU is not checked against
        the catalog: the caller does that.)
        """
        if qty < 1:
            raise StockError("Restock at least one unit.")
        document = self.collection.find_one_and_update(
            {"_id": str(sku)},
            {"$inc": {"qty": qty, "stocked": qty}, "$setOnInsert": {"carted": []}},
            upsert=True,
            projection={"qty": 1},
            return_document=ReturnDocument.AFTER,
        )
        if document is None:
            # SecantusDB difference: the losers of a race to upsert one missing document
            # get None back although their $inc was applied; read the quantity instead.
            document = self.collection.find_one({"_id": str(sku)}, {"qty": 1})
        return document["qty"]

    def adjust_stock(self, sku, delta):
        """Add ``delta`` units (negative: remove) to the available stock of ``sku``, never below zero.

        One conditional write (``qty >= -delta``), atomic against shoppers.
        ``stocked`` moves with it (units written off or found). Returns the
        available quantity afterwards. Raises ``StockError`` when the SKU has
        no inventory document or fewer than ``-delta`` units are available.
        """
        document = self.collection.find_one_and_update(
            {"_id": str(sku), "qty": {"$gte": -delta}},
            {"$inc": {"qty": delta, "stocked": delta}},
            projection={"qty": 1},
            return_document=ReturnDocument.AFTER,
        )
        if document is None:
            available = self.available(sku)
            if available is None:
                raise StockError(f"{sku} has no stock record.")
            raise StockError(f"Only {available} of {sku} available: cannot remove {-delta}.")
        return document["qty"]

    def set_stock(self, sku, qty):
        """Set the available stock of ``sku`` to ``qty`` (>= 0), whatever shoppers do meanwhile.

        A compare-and-set on the current ``qty`` (retried when a shopper
        changed it in between), so ``stocked`` moves by exactly the
        difference and reservations are untouched. Returns ``qty``. Raises
        ``StockError`` for a negative ``qty`` or an unknown SKU.
        """
        if qty < 0:
            raise StockError("Stock cannot be negative.")
        while True:
            current = self.available(sku)
            if current is None:
                raise StockError(f"{sku} has no stock record.")
            result = self.collection.update_one(
                {"_id": str(sku), "qty": current},
                {"$set": {"qty": qty}, "$inc": {"stocked": qty - current}},
            )
            if result.matched_count:
                return qty

    # -- orders: sold units leave the reservations, cancelled ones return ----

    def release_sold(self, cart_id):
        """Drop the reservations of a checked-out cart: its units are sold (seed 003 ``checkout``).

        One ``update_many`` over ``carted.cart_id`` pulling
        ``{'carted': {'cart_id': id}}`` (the seed pulled ``{'cart_id': id}``),
        whatever the number of lines. Returns the number of SKUs changed.
        """
        return self.collection.update_many(
            {"carted.cart_id": cart_id}, {"$pull": {"carted": {"cart_id": cart_id}}}
        ).modified_count

    def return_units(self, units):
        """Put sold units back on the shelf (a cancelled order): ``units`` is ``{sku: qty}``.

        One ``bulk_write`` with one ``$inc`` of ``qty`` per SKU (``stocked``
        is unchanged: the units were stocked once). Returns the number of
        SKUs changed; a SKU without a stock document is skipped.
        """
        writes = [UpdateOne({"_id": sku}, {"$inc": {"qty": qty}}) for sku, qty in units.items() if qty > 0]
        if not writes:
            return 0
        return self.collection.bulk_write(writes, ordered=False).modified_count

    # -- the cart handover at log-in (inventory.handover) --------------------

    def move_reservations(self, source, target, moves, attempts=3):
        """Move reservations from cart ``source`` to cart ``target``; returns the set of SKUs moved.

        ``moves`` is ``[(sku, source_qty, target_qty, keep), ...]``: the
        source holds ``source_qty`` units of ``sku``, the target
        ``target_qty`` (0: no reservation), and the target should hold
        ``keep`` afterwards (``keep <= source_qty + target_qty``: the rest
        goes back to ``qty``). One read of the SKUs' documents, then one
        ``bulk_write`` with one compare-and-set per SKU: the write matches
        only while ``qty`` and ``carted`` are exactly as read, and replaces
        the two entries by one, so a unit is never reserved twice nor lost.
        (A single write cannot change two entries of one array with the
        positional ``$``; a compare-and-set of the whole array is one form every
        server evaluates the same way.) A SKU whose write lost a race is read and tried again,
        up to ``attempts`` rounds; a SKU whose entries do not hold the
        stated quantities (a change in flight, a crashed add) is not moved.
        2 round trips when no write loses a race.
        """
        pending = {sku: (mine, theirs, keep) for sku, mine, theirs, keep in moves}
        moved = set()
        for _attempt in range(attempts):
            if not pending:
                break
            moment = clock.now()
            writes, written = [], []
            for document in self.collection.find({"_id": {"$in": list(pending)}}, {"qty": 1, "carted": 1}):
                sku, carted = document["_id"], document.get("carted", [])
                mine, theirs, keep = pending[sku]
                held = {e["cart_id"]: e["qty"] for e in carted}
                if held.get(source) != mine or held.get(target, 0) != theirs:
                    continue
                entries = [e for e in carted if e["cart_id"] not in (source, target)]
                entries.append({"qty": keep, "cart_id": target, "timestamp": moment})
                writes.append(UpdateOne(
                    {"_id": sku, "qty": document["qty"], "carted": carted},
                    {"$set": {"carted": entries}, "$inc": {"qty": mine + theirs - keep}},
                ))
                written.append(sku)
            if not writes:
                break
            if self.collection.bulk_write(writes, ordered=False).modified_count == len(writes):
                moved.update(written)
                break
            still_held = self.reservations_of(source)
            done = {sku for sku in written if sku not in still_held}
            moved |= done
            pending = {sku: pending[sku] for sku in written if sku not in done}
        return moved

    def release(self, cart_id, sku, qty):
        """Return the reservation of ``cart_id`` on ``sku`` to stock if it holds ``qty`` units; True if so."""
        return bool(self.collection.update_one(
            {"_id": sku, "carted": {"$elemMatch": {"cart_id": cart_id, "qty": qty}}},
            {"$inc": {"qty": qty}, "$pull": {"carted": {"cart_id": cart_id}}},
        ).modified_count)

    # -- DESIGN.md's invariant -------------------------------------------

    def check_invariant(self, attempts=3):
        """Check ``qty + sum(carted.qty) + sold == stocked`` for every SKU.

        ``sold`` is the units in the lines of orders whose stock was not
        returned (``Order.objects.sold_by_sku``); a reservation of a complete
        cart is already counted there (checkout's pull may not have run yet)
        and is not counted twice. Also checked: ``qty >= 0``,
        every reservation positive, at most one reservation per cart. The
        reads are not one snapshot, so a SKU that fails is checked again
        (up to ``attempts`` passes) and reported only if it fails every time:
        a checkout completing between the reads cannot raise a false alarm
        twice in a row. Returns ``[(sku, reason), ...]``, empty when it holds.
        """
        from orders.models import Order

        from .models import Cart

        suspects = None
        for _attempt in range(attempts):
            query = {} if suspects is None else {"_id": {"$in": sorted(suspects)}}
            documents = list(self.collection.find(query, {"qty": 1, "stocked": 1, "carted": 1}))
            cart_ids = {e["cart_id"] for d in documents for e in d.get("carted", [])}
            statuses = {}
            for batch in batched(cart_ids, BATCH_SIZE):
                statuses.update(Cart.objects.statuses(batch))
            sold = Order.objects.sold_by_sku()
            problems = {}
            for document in documents:
                sku, carted = document["_id"], document.get("carted", [])
                reserved = sum(e["qty"] for e in carted if statuses.get(e["cart_id"]) != "complete")
                holders = [e["cart_id"] for e in carted]
                stocked = document.get("stocked", 0)
                units = document["qty"] + reserved + sold.get(sku, 0)
                if document["qty"] < 0:
                    problems[sku] = f"available qty is negative ({document['qty']})"
                elif any(e["qty"] <= 0 for e in carted):
                    problems[sku] = "a reservation holds no units"
                elif len(holders) != len(set(holders)):
                    problems[sku] = "a cart holds two reservations"
                elif units != stocked:
                    problems[sku] = (
                        f"available {document['qty']} + reserved {reserved} + sold "
                        f"{sold.get(sku, 0)} = {units}, but {stocked} were stocked"
                    )
            if suspects is None:
                known = {d["_id"] for d in documents}
                for sku in set(sold) - known:
                    problems[sku] = f"{sold[sku]} sold but no inventory document"
            if not problems:
                return []
            suspects = set(problems)
        return sorted(problems.items())

    # -- seed 003 "Error Handling" --------------------------------------

    def cleanup(self, timeout):
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
        Returns ``{'refreshed': n, 'sold': n, 'returned': n}`` (reservations).
        """
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        moment = clock.now()
        stale = []  # (sku, entry)
        cursor = self.collection.find({"carted.timestamp": {"$lt": threshold}}, {"carted": 1})
        for document in cursor:
            for entry in document.get("carted", []):
                if clock.aware(entry["timestamp"]) < threshold:
                    stale.append((document["_id"], entry))
        from .models import Cart

        report = {"refreshed": 0, "sold": 0, "returned": 0}
        for batch in batched(stale, BATCH_SIZE):
            carts = Cart.objects.statuses_and_skus({entry["cart_id"] for _, entry in batch})
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
                    writes["returned"].append(UpdateOne(
                        {"_id": sku, "carted": {"$elemMatch": {"cart_id": cart_id, "qty": entry["qty"]}}},
                        {"$inc": {"qty": entry["qty"]}, "$pull": {"carted": {"cart_id": cart_id}}},
                    ))
            # One bulk per kind, so that each kind's count is that bulk's own.
            for kind, kind_writes in writes.items():
                if kind_writes:
                    report[kind] += self.collection.bulk_write(kind_writes, ordered=False).modified_count
        return report


class CartManager(MongoCollectionMixin, models.Manager):
    """Seed 003's cart operations on the ``carts`` collection."""
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

    # -- the cart handover at log-in (inventory.handover) -------------------

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
        return self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active", "user_id": {"$in": ["", None, str(user_id)]}},
            {"$set": {"user_id": str(user_id), "last_modified": clock.now()}},
            return_document=ReturnDocument.AFTER,
        )

    def lock_for_merge(self, cart_id, into):
        """active -> merging for cart ``cart_id`` (about to be combined into cart ``into``).

        One conditional write; returns the raw document, or None when the
        cart is not an active guest cart (nothing to combine; another
        account's cart is never taken). Adds to it are refused
        from here on (``CartInactive``).
        """
        if not isinstance(cart_id, str) or not cart_id:
            return None
        return self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active", "user_id": {"$in": ["", None]}},
            {"$set": {"status": "merging", "merged_into": into}},
            return_document=ReturnDocument.AFTER,
        )

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

    # -- seed 003 "Add an Item", "Modifying the Quantity" ----------------

    def create_cart(self, user_id=""):
        """Start an empty active cart with an unguessable id; returns the Cart (one write).

        ``user_id``: the account of a signed-in shopper ("" for a guest).
        """
        from .models import new_cart_id

        moment = clock.now()
        document = {"_id": new_cart_id(), "status": "active", "last_modified": moment, "items": [],
                    "user_id": str(user_id or "")}
        self.collection.insert_one(document)
        return self.model(id=document["_id"], status="active", last_modified=moment, items=[],
                          user_id=document["user_id"])

    @staticmethod
    def _inventory():
        from .models import Inventory

        return Inventory.objects.collection

    @staticmethod
    def _units(document):
        return sum(line["qty"] for line in (document or {}).get("items", []))

    def _refusal(self, cart_id, sku, max_qty=None):
        """The error for a cart write that matched nothing (one read): inactive, no line, too many."""
        document = self.collection.find_one(
            {"_id": cart_id}, {"status": 1, "items": {"$elemMatch": {"sku": sku}}}
        )
        if document is None or document["status"] != "active":
            return CartInactive()
        lines = document.get("items") or []
        if not lines:
            return NotInCart(sku)
        if max_qty is not None:
            return LineLimit(sku, max_qty)
        return ReservationConflict(sku)

    def _inventory_refusal(self, sku, wanted):
        """The error for an inventory write that matched nothing (one read)."""
        document = self._inventory().find_one({"_id": sku}, {"qty": 1})
        if document is None:
            return UnknownSku(sku)
        if document["qty"] < wanted:
            return InadequateInventory(sku, document["qty"])
        return ReservationConflict(sku)

    def _reserve(self, sku, condition, update):
        """Apply a conditional inventory ``update`` of ``sku``; when ``condition`` matches
        nothing, reclaim the SKU's reservations held by abandoned carts
        (``reclaim_abandoned``) and try once more. True when the update applied.

        So on any set-up, with or without ``expire_carts`` in cron, an
        abandoned cart never blocks a sale: 1 write, or when short of stock
        1 read (+ the expiry of the abandoned carts and 1 write when there are some).
        """
        inventory = self._inventory()
        if inventory.update_one(condition, update).matched_count:
            return True
        if not self.reclaim_abandoned(sku):
            return False
        return bool(inventory.update_one(condition, update).matched_count)

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
        document = self._inventory().find_one({"_id": sku}, {"carted.cart_id": 1, "carted.timestamp": 1})
        stale = [entry["cart_id"] for entry in (document or {}).get("carted", [])
                 if clock.aware(entry["timestamp"]) < threshold]
        if not stale:
            return 0
        run = secrets.token_hex(8)
        self.collection.update_many(
            {"_id": {"$in": stale}, "status": {"$in": list(LIVE_STATUSES)},
             "last_modified": {"$lt": threshold}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        return self._finish_expiring(run)["expired"]

    def add_item(self, cart_id, sku, qty, details, max_qty):
        """Put ``qty`` units of ``sku`` in the cart: seed 003 ``add_item_to_cart``, seed bug fixed.

        ``details`` is ``{'title': str, 'price': cents}``; ``max_qty`` caps
        the line's quantity. A SKU not yet in the cart costs 2 writes: the
        cart gets the line (only while active and without a line for this
        SKU), then the inventory takes the units (only while ``qty`` covers
        them) and records the reservation; when the inventory refuses, a
        third write rolls the cart back. A SKU already in the cart raises its
        line's quantity instead (3 writes: the push is tried first).
        Returns the number of units in the cart afterwards. Raises
        ``CartInactive``, ``InadequateInventory``, ``UnknownSku``,
        ``LineLimit``, ``ReservationConflict``; nothing is changed then.
        """
        moment = clock.now()
        line = {"sku": sku, "qty": qty, "details": {"title": details["title"], "price": details["price"]}}
        cart = self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active", "items.sku": {"$ne": sku}},
            {"$set": {"last_modified": moment}, "$push": {"items": line}},
            projection={"items.qty": 1},
            return_document=ReturnDocument.AFTER,
        )
        if cart is not None:
            reserved = self._reserve(
                sku,
                # At most one reservation per cart and SKU: returns $pull by cart_id.
                {"_id": sku, "qty": {"$gte": qty}, "carted.cart_id": {"$ne": cart_id}},
                {"$inc": {"qty": -qty},
                 "$push": {"carted": {"qty": qty, "cart_id": cart_id, "timestamp": moment}}},
            )
            if not reserved:
                self.collection.update_one(
                    {"_id": cart_id, "status": {"$ne": "complete"}}, {"$pull": {"items": {"sku": sku}}}
                )
                raise self._inventory_refusal(sku, qty)
            return self._units(cart)

        # The SKU is in the cart already (or the cart is not active): raise the line's quantity.
        # The line is named by an array filter, not the positional `$`: SecantusDB
        # 0.7.0b3 refuses `$` in findAndModify; both forms mean the same on MongoDB.
        cart = self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active",
             "items": {"$elemMatch": {"sku": sku, "qty": {"$lte": max_qty - qty}}}},
            {"$set": {"last_modified": moment}, "$inc": {"items.$[line].qty": qty}},
            array_filters=[{"line.sku": sku}],
            projection={"items.qty": 1},
            return_document=ReturnDocument.AFTER,
        )
        if cart is None:
            raise self._refusal(cart_id, sku, max_qty=max_qty)
        reserved = self._reserve(
            sku,
            {"_id": sku, "qty": {"$gte": qty}, "carted.cart_id": cart_id},
            {"$inc": {"qty": -qty, "carted.$.qty": qty}, "$set": {"carted.$.timestamp": moment}},
        )
        if not reserved:
            self.collection.update_one(
                {"_id": cart_id, "status": {"$ne": "complete"}, "items.sku": sku},
                {"$inc": {"items.$.qty": -qty}},
            )
            raise self._inventory_refusal(sku, qty)
        return self._units(cart)

    def update_quantity(self, cart_id, sku, qty):
        """Set the quantity of the cart's line of ``sku`` to ``qty``: seed 003 ``update_quantity``.

        ``qty`` 0 removes the line (``remove_item``). The cart line changes
        first (only while the cart is active), returning its old quantity;
        then the inventory moves the difference ``delta`` (only while ``qty``
        covers an increase) and adds it to the reservation, setting
        ``carted.$.timestamp`` (the seed set a top-level ``timestamp``).
        Both sides move by the same ``delta`` taken from the atomic
        before-image of the line, so concurrent changes of one line add up
        the same in the cart and in the reservation. A refusal takes
        ``delta`` back off the line. 2 writes (3 with the rollback). Returns the number of units in the cart afterwards.
        Raises ``CartInactive``, ``NotInCart``, ``InadequateInventory``,
        ``ReservationConflict``; nothing is changed then.
        """
        if qty == 0:
            return self.remove_item(cart_id, sku)
        moment = clock.now()
        # An array filter, not the positional `$` (SecantusDB refuses `$` in findAndModify).
        before = self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active", "items.sku": sku},
            {"$set": {"last_modified": moment, "items.$[line].qty": qty}},
            array_filters=[{"line.sku": sku}],
            projection={"items.sku": 1, "items.qty": 1},
            return_document=ReturnDocument.BEFORE,
        )
        if before is None:
            raise self._refusal(cart_id, sku)
        old = next(line["qty"] for line in before["items"] if line["sku"] == sku)
        units = self._units(before) - old + qty
        delta = qty - old
        if delta == 0:
            return units
        reserved = self._reserve(
            sku,
            {"_id": sku, "qty": {"$gte": delta}, "carted.cart_id": cart_id},
            {"$inc": {"qty": -delta, "carted.$.qty": delta}, "$set": {"carted.$.timestamp": moment}},
        )
        if not reserved:
            self.collection.update_one(
                {"_id": cart_id, "status": {"$ne": "complete"}, "items.sku": sku},
                {"$inc": {"items.$.qty": -delta}},
            )
            raise self._inventory_refusal(sku, delta)
        return units

    def remove_item(self, cart_id, sku):
        """Take the line of ``sku`` out of the cart and return its reservation to stock.

        The cart line is pulled first (only while active), then the
        reservation is returned (only while it holds the line's quantity). A
        line that has no reservation at all (an earlier add crashed between
        its two writes) is simply removed. A reservation holding another
        quantity (a change in flight) puts the line back and raises
        ``ReservationConflict``. 2 writes. Returns the number of units in the
        cart afterwards. Raises ``CartInactive``, ``NotInCart``.
        """
        moment = clock.now()
        before = self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active", "items.sku": sku},
            {"$set": {"last_modified": moment}, "$pull": {"items": {"sku": sku}}},
            return_document=ReturnDocument.BEFORE,
        )
        if before is None:
            raise self._refusal(cart_id, sku)
        line = next(line for line in before["items"] if line["sku"] == sku)
        units = self._units(before) - line["qty"]
        stock = self._inventory().update_one(
            {"_id": sku, "carted": {"$elemMatch": {"cart_id": cart_id, "qty": line["qty"]}}},
            {"$inc": {"qty": line["qty"]}, "$pull": {"carted": {"cart_id": cart_id}}},
        )
        if stock.matched_count:
            return units
        holder = self._inventory().find_one({"_id": sku, "carted.cart_id": cart_id}, {"_id": 1})
        if holder is None:
            return units
        self.collection.update_one(
            {"_id": cart_id, "status": {"$ne": "complete"}, "items.sku": {"$ne": sku}},
            {"$push": {"items": line}},
        )
        raise ReservationConflict(sku)

    # -- seed 003 "Checking Out" ----------------------------------------

    def _unlock(self, cart_id):
        """pending -> active again (payment declined, cart changed): one conditional write."""
        self.collection.update_one(
            {"_id": cart_id, "status": "pending"},
            {"$set": {"status": "active", "last_modified": clock.now()}},
        )

    def lock_for_checkout(self, cart_id):
        """Seed 003 ``checkout``'s first steps: lock the cart and check it against its reservations.

        1. Lock: active -> pending, returning the cart (``find_one_and_update``).
        2. Compare the lines with the cart's reservations (one read): a line
           whose units are not reserved (a change in flight or a crashed add)
           unlocks the cart and raises ``CartChanged``, so nothing unreserved
           is ever sold.

        Returns the raw cart document (status ``pending``). 2 round trips
        whatever the number of lines (3 with an unlock). Raises
        ``CartInactive`` (not active: expired, in checkout, complete),
        ``EmptyCart``, ``CartChanged``. The caller charges, then calls
        ``complete_checkout`` or ``unlock`` (``orders.checkout.place_order``).
        """
        cart = self.collection.find_one_and_update(
            {"_id": cart_id, "status": "active"},
            {"$set": {"status": "pending", "last_modified": clock.now()}},
            return_document=ReturnDocument.AFTER,
        )
        if cart is None:
            raise CartInactive("This cart is no longer active. Nothing was charged.")
        wanted = {}
        for line in cart["items"]:
            wanted[line["sku"]] = wanted.get(line["sku"], 0) + line["qty"]
        if not wanted:
            self.unlock(cart_id)
            raise EmptyCart()
        try:
            reserved = self._reservations(cart_id)
        except Exception:
            self.unlock(cart_id)
            raise
        if reserved != wanted:
            self.unlock(cart_id)
            raise CartChanged()
        return cart

    def unlock(self, cart_id):
        """pending -> active again (payment declined, cart changed): one conditional write."""
        self._unlock(cart_id)

    def complete_checkout(self, cart_id, customer_name, customer_email, payment_reference):
        """pending -> complete, only if still pending (one conditional write); True when done.

        False means ``expire_carts`` took the cart while the payment was being
        taken: the caller refunds. The cart's units are sold from here on; the
        caller then pulls its reservations (``Inventory.objects.release_sold``).
        """
        done = self.collection.update_one(
            {"_id": cart_id, "status": "pending"},
            {"$set": {"status": "complete", "last_modified": clock.now(), "customer_name": customer_name,
                      "customer_email": customer_email, "payment_reference": payment_reference}},
        )
        return bool(done.matched_count)

    def _reservations(self, cart_id):
        from .models import Inventory

        return Inventory.objects.reservations_of(cart_id)

    # -- seed 003 "Returning Inventory from Timed-Out Carts" -------------

    def expire(self, timeout):
        """Seed 003 ``expire_carts``: expire carts unchanged for ``timeout`` seconds, return their stock.

        1. One ``update_many`` marks the active carts, and the pending ones
           (a checkout that crashed after its lock: see ``checkout``), older
           than the threshold ``expiring``, tagged with this run's random
           ``expiry_run``; a second one adopts carts left ``expiring`` by a
           run that crashed (older than the threshold too).
        2. One read streams this run's carts; a batch at a time, their lines'
           reservations go back to ``qty`` (``_return_reservations``: one
           write per SKU, conditional on the reservations holding the lines'
           quantities, so nothing is returned twice).
        3. One ``update_many`` makes this run's carts ``expired``.

        The tag keeps every step one indexed pass, without lists of ids (a
        concurrent run that adopts a cart takes over its expiry). Safe to run
        twice or concurrently. Returns ``{'expired': n, 'returned': n}``
        (carts, reservations). A reservation not returned here (its quantity
        changed in flight) is returned by ``cleanup_inventory``.
        """
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        run = secrets.token_hex(8)
        self.collection.update_many(
            {"status": {"$in": list(LIVE_STATUSES)}, "last_modified": {"$lt": threshold}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        self.collection.update_many(
            {"status": "expiring", "last_modified": {"$lt": threshold}, "expiry_run": {"$ne": run}},
            {"$set": {"expiry_run": run}},
        )
        return self._finish_expiring(run)

    def expire_cart(self, cart_id):
        """Expire the cart ``cart_id`` now (for staff), returning its stock. True when it was live."""
        run = secrets.token_hex(8)
        locked = self.collection.update_one(
            {"_id": cart_id, "status": {"$in": list(LIVE_STATUSES)}},
            {"$set": {"status": "expiring", "expiry_run": run}},
        )
        self._finish_expiring(run)
        return bool(locked.matched_count)

    def _return_reservations(self, carts):
        """Return the reservations of the lines of ``carts`` (raw documents) to stock.

        One write per SKU rather than per line: ``$inc`` by the sum of the
        lines and ``$pull`` of every cart's entry, conditional (``$all`` of
        ``$elemMatch``) on every entry holding its line's quantity. A SKU whose
        write did not match (an entry changed in flight, or a line that was
        never reserved) is found by one read and done entry by entry, each
        write conditional on its own entry. Returns how many reservations
        went back.
        """
        by_sku = {}
        for cart in carts:
            for line in cart.get("items", []):
                by_sku.setdefault(line["sku"], []).append((cart["_id"], line["qty"]))
        if not by_sku:
            return 0
        inventory = self._inventory()
        grouped = inventory.bulk_write([
            UpdateOne(
                {"_id": sku,
                 "carted": {"$all": [{"$elemMatch": {"cart_id": c, "qty": q}} for c, q in entries]}},
                {"$inc": {"qty": sum(q for _, q in entries)},
                 "$pull": {"carted": {"cart_id": {"$in": [c for c, _ in entries]}}}},
            )
            for sku, entries in by_sku.items()
        ], ordered=False)
        leftover = set()
        if grouped.modified_count < len(by_sku):
            cart_ids = [cart["_id"] for cart in carts]
            leftover = {
                d["_id"] for d in inventory.find(
                    {"_id": {"$in": list(by_sku)}, "carted.cart_id": {"$in": cart_ids}}, {"_id": 1}
                )
            }
        done = [sku for sku in by_sku if sku not in leftover]
        if grouped.modified_count == len(done):
            returned = sum(len(by_sku[sku]) for sku in done)
        else:
            # Some SKUs had nothing left to return (another run or cleanup got there
            # first); which ones is not known: count one reservation per SKU written.
            returned = grouped.modified_count
        writes = [
            UpdateOne(
                {"_id": sku, "carted": {"$elemMatch": {"cart_id": c, "qty": q}}},
                {"$inc": {"qty": q}, "$pull": {"carted": {"cart_id": c}}},
            )
            for sku in leftover
            for c, q in by_sku[sku]
        ]
        if writes:
            returned += inventory.bulk_write(writes, ordered=False).modified_count
        return returned

    def _finish_expiring(self, run):
        """Return the stock of the carts tagged ``run`` and make them ``expired`` (see ``expire``)."""
        returned = 0
        cursor = self.collection.find(
            {"status": "expiring", "expiry_run": run}, {"items.sku": 1, "items.qty": 1}
        )
        for batch in batched(cursor, BATCH_SIZE):
            returned += self._return_reservations(batch)
        expired = self.collection.update_many(
            {"status": "expiring", "expiry_run": run},
            {"$set": {"status": "expired", "last_modified": clock.now()}},
        ).modified_count
        return {"expired": expired, "returned": returned}
