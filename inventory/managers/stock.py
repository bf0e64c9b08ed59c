"""``Inventory.objects``: the "Inventory Management" use case's ``inventory`` collection, one document per SKU.

``{_id: sku, qty, stocked, carted: [{qty, cart_id, timestamp}]}``: ``qty`` is
what is still available, ``carted`` the reservations of carts. Every write
here is one conditional single-document update (or a ``bulk_write`` of them):
a reservation only matches while ``qty`` covers the request
(``{'qty': {'$gte': n}}``), a return only while the entry holds the quantity
it returns, so no unit is ever taken or given back twice. The carts
(``Cart.objects``, ``carts.py``) ask this manager to reserve, change and
release; checkout (``orders.checkout``) to drop the reservations of a sold
cart; staff and commands to restock.

Bugs of the source fixed (docs/operations.md): checkout pulls
``{'carted': {'cart_id': id}}``; ``update_quantity`` sets
``carted.$.timestamp``. Conditions on two fields of one ``carted`` entry use
``$elemMatch`` (the source's ``{'carted.cart_id': c, 'carted.qty': q}`` can
match two different entries). ``cleanup`` (``cleanup_inventory``) is in
``cleanup.py``, the expiry's returns grouped by SKU in ``returns.py``.
"""

from django.db import models
from pymongo import UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

from core import clock
from core.mongo import only_duplicate_keys
from core.mongo.collections import MongoCollectionMixin
from core.mongo.writes import write_once

from ..exceptions import StockError
from ..shown import forgets, shown_available
from .rules import return_entry


class InventoryManager(MongoCollectionMixin, models.Manager):
    """Stock of each SKU: the "Inventory Management" use case's ``inventory`` collection (see the module docstring).

    ``cleanup`` (``cleanup_inventory``) is ``Inventory.cleanup``
    (``cleanup.ReservationCleanupManager``), the expiry's ``return_reservations``
    ``Inventory.returns`` (``returns.ReservationReturnManager``).
    """

    # -- reads ---------------------------------------------------------

    def available(self, sku):
        """Units of ``sku`` still available (int), or None when the SKU has no inventory document."""
        document = self.collection.find_one({"_id": str(sku)}, {"qty": 1})
        return None if document is None else document["qty"]

    def stocked(self, sku):
        """Units of ``sku`` in stock, available or reserved in carts (int), or None without an
        inventory document: the per-client cap's base (``inventory.limits.units_cap``)."""
        document = self.collection.find_one({"_id": str(sku)}, {"stocked": 1})
        return None if document is None else int(document.get("stocked") or 0)

    def available_many(self, skus):
        """``{sku: available units}`` for the SKUs of ``skus`` that have stock documents (one read)."""
        cursor = self.collection.find({"_id": {"$in": [str(s) for s in skus]}}, {"qty": 1})
        return {d["_id"]: d["qty"] for d in cursor}

    def shown_many(self, skus):
        """``{sku: available units}`` as the storefront's pages show them: kept a moment per
        SKU (``inventory.shown``; ``settings.STOCK_SHOWN_SECONDS``), forgotten by every stock
        write here. No read when every SKU is kept, else one ``$in`` of the missing ones.
        Never for a decision (adding to a cart, checkout): ``available_many`` is."""
        return shown_available(skus, self.available_many)

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

    def carts_holding(self, cart_ids):
        """The set of the carts among ``cart_ids`` that hold a reservation of any SKU (one read,
        through ``carted.cart_id``; keep ``cart_ids`` to about 100: the local server compares
        each document with every id of an ``$in``)."""
        ids = set(cart_ids)
        cursor = self.collection.find({"carted.cart_id": {"$in": list(ids)}}, {"carted.cart_id": 1})
        return {entry["cart_id"] for document in cursor for entry in document.get("carted", [])} & ids

    def stock_levels(self, skus=None, batch_size=1000):
        """The raw documents ``{_id: sku, qty, stocked, carted}`` of the SKUs ``skus`` (None: every
        SKU), streamed (one read, a round trip per ``batch_size`` documents).
        ``inventory.invariant`` checks them."""
        query = {} if skus is None else {"_id": {"$in": list(skus)}}
        return self.collection.find(query, {"qty": 1, "stocked": 1, "carted": 1}, batch_size=batch_size)

    def holds(self, cart_id, sku):
        """True when cart ``cart_id`` holds a reservation of ``sku`` (one read)."""
        return self.collection.find_one({"_id": sku, "carted.cart_id": cart_id}, {"_id": 1}) is not None

    def reserved_before(self, sku, threshold):
        """The ids of the carts holding a reservation of ``sku`` made before ``threshold`` (an
        aware UTC datetime): a list, empty when the SKU has no document (one read)."""
        document = self.collection.find_one({"_id": sku}, {"carted.cart_id": 1, "carted.timestamp": 1})
        return [entry["cart_id"] for entry in (document or {}).get("carted", [])
                if clock.aware(entry["timestamp"]) < threshold]

    # -- stock for operators and staff ----------------------------------

    @forgets(lambda skus, qty: skus)
    def ensure_stock(self, skus, qty):
        """Give every SKU of ``skus`` an inventory document with ``qty`` units, unless it has one.

        Never changes an existing document, so ``load_catalog`` can run again:
        one read of which SKUs have a document, then one unordered
        ``insert_many`` of the others (a document another process created in
        between makes its insert fail as a duplicate key, which is left as it
        is). Inserts rather than ``$setOnInsert`` upserts: the local SecantusDB
        (docs/local-server-differences.md: local-server differences 19, 3 and 20)
        server commits an insert batch once but each upsert on its own (about
        3 ms each: a third of ``populatedb``'s time), and MongoDB runs both forms alike.
        Returns the number of documents created. Raises ``StockError`` for a negative ``qty``.
        """
        if qty < 0:
            raise StockError("A starting stock cannot be negative.")
        skus = list(dict.fromkeys(str(s) for s in skus))
        if not skus:
            return 0
        existing = {d["_id"] for d in self.collection.find({"_id": {"$in": skus}}, {"_id": 1})}
        missing = [{"_id": sku, "qty": qty, "stocked": qty, "carted": []} for sku in skus if sku not in existing]
        if not missing:
            return 0
        try:
            return len(self.collection.insert_many(missing, ordered=False).inserted_ids)
        except BulkWriteError as error:
            if not only_duplicate_keys(error):
                raise
            return error.details.get("nInserted", 0)

    @forgets(lambda sku, qty: [sku])
    def restock(self, sku, qty):
        """Add ``qty`` (> 0) units of ``sku`` to the available stock; creates its document if missing.

        One ``update_one`` upsert by ``_id`` and one read of the quantity (not a
        ``find_one_and_update``: SecantusDB reads the whole collection on every
        findAndModify, docs/local-server.md). Two upserts racing to create one
        document may refuse the loser with a duplicate key (MongoDB may too); it
        is then an update of the winner's document. Returns the available
        quantity afterwards. Raises ``StockError`` for ``qty`` below 1. (The SKU
        is not checked against the catalog: the caller does that.)
        """
        if qty < 1:
            raise StockError("Restock at least one unit.")
        update = {"$inc": {"qty": qty, "stocked": qty}, "$setOnInsert": {"carted": []}}
        try:
            self.collection.update_one({"_id": str(sku)}, update, upsert=True)
        except DuplicateKeyError:
            self.collection.update_one({"_id": str(sku)}, update)
        return self.available(sku)

    @forgets(lambda sku, delta: [sku])
    def adjust_stock(self, sku, delta):
        """Add ``delta`` units (negative: remove) to the available stock of ``sku``, never below zero.

        One conditional ``update_one`` by ``_id`` (``qty >= -delta``), atomic
        against shoppers, and one read of the quantity (not a
        ``find_one_and_update``: see ``restock``). ``stocked`` moves with it
        (units written off or found). Returns the available quantity
        afterwards. Raises ``StockError`` when the SKU has no inventory
        document or fewer than ``-delta`` units are available.
        """
        done = self.collection.update_one(
            {"_id": str(sku), "qty": {"$gte": -delta}},
            {"$inc": {"qty": delta, "stocked": delta}},
        )
        available = self.available(sku)
        if not done.matched_count:
            if available is None:
                raise StockError(f"{sku} has no stock record.")
            raise StockError(f"Only {available} of {sku} available: cannot remove {-delta}.")
        return available

    @forgets(lambda sku, qty: [sku])
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

    @forgets(lambda levels, dry_run=False: () if dry_run else levels)
    def set_stock_many(self, levels, dry_run=False):
        """Make the available stock of each SKU of ``levels`` (``{sku: units >= 0}``) that
        many units: the imports' stock column and the stock feed.

        One read of the SKUs' documents; the SKUs without one get it in one unordered
        ``insert_many`` (``ensure_stock``'s form; the read is made 100 SKUs at a time: see
        ``catalog.products.import_manager.SKUS_PER_READ``); each SKU whose ``qty`` differs goes
        through ``set_stock`` (a compare-and-set on ``qty``, so a shopper's reservation
        made meanwhile is kept, ``stocked`` moves by the difference, and the invariant
        ``qty + carted + sold = stocked`` holds). With ``dry_run`` nothing is written.
        Returns ``{"created": n, "changed": n, "unchanged": n}``. Raises ``StockError``
        for a negative level.
        """
        levels = {str(sku): int(qty) for sku, qty in levels.items()}
        if any(qty < 0 for qty in levels.values()):
            raise StockError("Stock cannot be negative.")
        current, skus = {}, list(levels)
        for start in range(0, len(skus), 100):  # SecantusDB: an $in of 100 costs a sixth of 1,000's tenth
            current.update(self.available_many(skus[start:start + 100]))
        report = {"created": 0, "changed": 0, "unchanged": 0}
        missing = [{"_id": sku, "qty": qty, "stocked": qty, "carted": []}
                   for sku, qty in levels.items() if sku not in current]
        report["created"] = len(missing)
        if missing and not dry_run:
            try:
                self.collection.insert_many(missing, ordered=False)
            except BulkWriteError as error:
                if not only_duplicate_keys(error):
                    raise
                for document in missing:  # created meanwhile by another process: set it
                    self.set_stock(document["_id"], document["qty"])
        for sku, qty in levels.items():
            if sku not in current:
                continue
            if current[sku] == qty:
                report["unchanged"] += 1
                continue
            report["changed"] += 1
            if not dry_run:
                self.set_stock(sku, qty)
        return report

    # -- the carts' reservations (Cart.objects) ---------------------------

    @forgets(lambda cart_id, sku, qty, moment: [sku])
    def reserve(self, cart_id, sku, qty, moment):
        """Take ``qty`` units of ``sku`` off ``qty`` for cart ``cart_id``: the "Inventory Management" use case ``add_item_to_cart``.

        One conditional write: it matches only while ``qty`` covers the
        request and the cart holds no reservation of the SKU yet (at most one
        per cart and SKU: returns ``$pull`` by ``cart_id``), and pushes
        ``{qty, cart_id, timestamp: moment}`` onto ``carted``. True when
        reserved; False changed nothing (too few units, no such SKU, or a
        reservation already there). After a dropped connection the write counts as
        done when the SKU holds this very entry (its ``moment``), else it is tried again.
        """
        entry = {"qty": qty, "cart_id": cart_id, "timestamp": moment}
        return bool(write_once(
            lambda: self.collection.update_one(
                {"_id": sku, "qty": {"$gte": qty}, "carted.cart_id": {"$ne": cart_id}},
                {"$inc": {"qty": -qty}, "$push": {"carted": entry}},
            ).matched_count,
            lambda: self._has_entry(sku, entry)))

    def _has_entry(self, sku, entry):
        """True when ``sku``'s ``carted`` holds an entry with the values of ``entry`` (one read)."""
        return self.collection.find_one({"_id": sku, "carted": {"$elemMatch": entry}}, {"_id": 1}) is not None

    @forgets(lambda cart_id, sku, delta, moment: [sku])
    def change_reservation(self, cart_id, sku, delta, moment):
        """Add ``delta`` units (negative: give back) to cart ``cart_id``'s reservation of ``sku``.

        The "Inventory Management" use case ``update_quantity``: one conditional write, matching only
        while ``qty`` covers ``delta`` and the cart holds a reservation; it
        moves ``delta`` from ``qty`` to the entry and sets
        ``carted.$.timestamp`` to ``moment`` (the source set a top-level
        ``timestamp``). True when changed; False changed nothing. After a dropped
        connection the write counts as done when the entry carries ``moment``.
        """
        return bool(write_once(
            lambda: self.collection.update_one(
                {"_id": sku, "qty": {"$gte": delta}, "carted.cart_id": cart_id},
                {"$inc": {"qty": -delta, "carted.$.qty": delta}, "$set": {"carted.$.timestamp": moment}},
            ).matched_count,
            lambda: self._has_entry(sku, {"cart_id": cart_id, "timestamp": moment})))

    @forgets(lambda cart_id, sku, qty: [sku])
    def release(self, cart_id, sku, qty):
        """Return the reservation of ``cart_id`` on ``sku`` to stock if it holds ``qty`` units; True if so.

        After a dropped connection the write counts as done when the reservation is gone."""
        return bool(write_once(
            lambda: self.collection.update_one(*return_entry(cart_id, sku, qty)).modified_count,
            lambda: not self.holds(cart_id, sku)))

    @forgets(lambda source, target, moves, attempts=3: [move[0] for move in moves])
    def move_reservations(self, source, target, moves, attempts=3):
        """Move reservations from cart ``source`` to cart ``target``; returns the set of SKUs moved.

        The cart merge at log-in (``inventory.merge``).
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

    # -- orders: sold units leave the reservations, cancelled ones return ----

    def release_sold(self, cart_id):
        """Drop the reservations of a checked-out cart: its units are sold ("Inventory Management" use case ``checkout``).

        One ``update_many`` over ``carted.cart_id`` pulling
        ``{'carted': {'cart_id': id}}`` (the source pulled ``{'cart_id': id}``),
        whatever the number of lines. Returns the number of SKUs changed.
        """
        return self.collection.update_many(
            {"carted.cart_id": cart_id}, {"$pull": {"carted": {"cart_id": cart_id}}}
        ).modified_count

    @forgets(lambda units: units)
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
