"""The orders' MongoDB operations, as raw pymongo on ``Order.objects``.

Every status change is a compare-and-set: a read of the order, then one
conditional ``update_one`` by ``_id`` that matches only while the order is
still in the status read (one the new status may follow), sets the status
and pushes the change onto ``history`` in the same write, so two staff
members (or a double click) cannot both ship and cancel one order. (Not a
``find_one_and_update``: SecantusDB reads the whole collection on every
(docs/local-server-differences.md: local-server differences 3, 10 and 5)
findAndModify, docs/local-server.md.)
Views, commands and admin classes call these methods; none builds a query.
"""

import datetime

from django.db import connections, models
from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo.collections import MongoCollectionMixin
from core.mongo.writes import write_once

from .. import numbers, pricing
from ..exceptions import InvalidTransition, OrderError

COUNTERS = "counters"
ORDER_COUNTER = "order_number"


def _as_read(value):
    """``value`` as MongoDB gives it back: datetimes naive UTC (recursively through dicts and lists)."""
    if isinstance(value, dict):
        return {key: _as_read(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_read(item) for item in value]
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


class OrderManager(MongoCollectionMixin, models.Manager):
    """Orders: numbering, placing, reading, status changes, sold units."""

    # -- numbering ---------------------------------------------------------

    def next_number(self):
        """Allocate the next order number: one ``find_one_and_update`` with ``$inc``.

        The shop's one ``findAndModify``, on purpose: SecantusDB reads the whole
        collection on every findAndModify, but ``counters`` holds a handful of
        documents that never grows, so this costs the same on day 300 as on day 1
        (``tests/shop/test_write_forms.py`` allows it and no other).
        A dropped connection may skip a number (the ``$inc`` may have landed):
        numbers stay unique, and a gap is harmless.

        Atomic on any MongoDB: concurrent callers get distinct, consecutive
        counter values. Returns the formatted number (``numbers.format_number``).
        The counter document is created on first use by a separate
        ``$setOnInsert`` upsert and a retry (two more round trips, once in the shop's life).

        SecantusDB difference: when several ``find_one_and_update(upsert=True)``
        race to create one missing document, every ``$inc`` is applied but the
        losers get ``None`` back instead of the document, so their numbers
        would be lost. The counter is therefore never upserted and incremented
        in the same command; a real MongoDB evaluates this form identically.
        """
        counters = connections[self.db].get_collection(COUNTERS)
        for _ in range(2):
            counter = counters.find_one_and_update(
                {"_id": ORDER_COUNTER}, {"$inc": {"seq": 1}}, return_document=ReturnDocument.AFTER,
            )
            if counter is not None:
                return numbers.format_number(counter["seq"])
            try:
                counters.update_one({"_id": ORDER_COUNTER}, {"$setOnInsert": {"seq": 0}}, upsert=True)
            except DuplicateKeyError:  # another caller created it first
                pass
        raise RuntimeError("The order number counter could not be created.")

    # -- placing -------------------------------------------------------------

    def insert_order(self, document):
        """Insert a placed order (one write). ``document``: the raw shape of ``Order`` (models.py).

        Returns the ``Order``. The unique ``cart_id`` index refuses a second
        order for one cart (``pymongo.errors.DuplicateKeyError``). After a
        dropped connection the insert counts as done when the order's ``_id``
        (one per payment attempt) is there.
        """
        write_once(lambda: self.collection.insert_one(document),
                   lambda: self.collection.find_one({"_id": document["_id"]}, {"_id": 1}) is not None)
        return self.from_document(_as_read(document))

    # -- reads -----------------------------------------------------------------

    def placed_between(self, since=None, until=None, batch_size=1000):
        """The order documents placed from ``since`` (included) to ``until`` (excluded), aware
        UTC datetimes or None for no bound, oldest first: streamed (a round trip per
        ``batch_size``). The accountants' CSV (``orders/exports.py``)."""
        placed = {}
        if since is not None:
            placed["$gte"] = since
        if until is not None:
            placed["$lt"] = until
        query = {"placed_at": placed} if placed else {}
        return self.collection.find(query, batch_size=batch_size).sort([("placed_at", 1), ("_id", 1)])

    def by_numbers(self, numbers):
        """The order documents with the order ``numbers`` (strings), oldest first (one read)."""
        cursor = self.collection.find({"number": {"$in": [str(n) for n in numbers]}})
        return sorted(cursor, key=lambda d: (d["placed_at"], str(d["_id"])))

    def by_carts(self, cart_ids):
        """The order documents placed from the carts ``cart_ids`` (str), with ``cart_id``,
        ``number``, ``total``, ``refunded``, ``discounts`` and ``placed_at`` only: one read on
        the unique ``cart_id`` index (a campaign's report, ``promotions.reports``, which gets this
        reader from ``OrdersConfig.ready``)."""
        wanted = sorted({str(c) for c in cart_ids if c})
        if not wanted:
            return []
        return list(self.collection.find({"cart_id": {"$in": wanted}}, {
            "cart_id": 1, "number": 1, "total": 1, "refunded": 1, "discounts": 1, "placed_at": 1}))

    def get_by_number(self, number):
        """The order with ``number`` (one read), or None. ``number`` is typed text: normalized first."""
        number = numbers.normalize(number)
        if not number:
            return None
        document = self.collection.find_one({"number": number})
        return None if document is None else self.from_document(document)

    def get_by_payment(self, reference):
        """The order paid by ``reference`` (a PaymentIntent id; one read), or None."""
        if not isinstance(reference, str) or not reference:
            return None
        document = self.collection.find_one({"payment.reference": reference})
        return None if document is None else self.from_document(document)

    def get_by_cart(self, cart_id):
        """The order placed from cart ``cart_id`` (one read), or None."""
        if not isinstance(cart_id, str) or not cart_id:
            return None
        document = self.collection.find_one({"cart_id": cart_id})
        return None if document is None else self.from_document(document)

    def for_user(self, user_id, limit=50):
        """The orders of account ``user_id`` (str), newest first, at most ``limit`` (one read)."""
        cursor = self.collection.find({"user_id": str(user_id)}).sort("placed_at", -1).limit(limit)
        return [self.from_document(document) for document in cursor]

    def charge_references(self):
        """The set of the provider charge ids the orders were paid with (one read, projected)."""
        return {document["payment"]["reference"]
                for document in self.collection.find({}, {"payment.reference": 1}) if document.get("payment")}

    def sold_by_sku(self):
        """``{sku: units}`` sold: the lines of every order whose units were not restocked, less
        the units refunds of lines put back (one aggregation)."""
        pipeline = [
            {"$match": {"restocked": {"$ne": True}}},
            {"$unwind": "$lines"},
            # Less the units a refund of lines put back (lines.restocked, missing on older orders).
            {"$group": {"_id": "$lines.sku", "units": {"$sum": {
                "$subtract": ["$lines.qty", {"$ifNull": ["$lines.restocked", 0]}]}}}},
        ]
        return {row["_id"]: row["units"] for row in self.collection.aggregate(pipeline)}

    # -- status changes ------------------------------------------------------------

    def transition(self, number, status, note="", extra=None):
        """Move order ``number`` to ``status`` if the current status allows it (compare-and-set).

        One read of the order by its unique number, then one ``update_one``
        by ``_id`` matching only while the status is still the one read
        (retried from the read when another change came first). Pushes
        ``{status, at, note}`` onto ``history``; ``extra`` is a dict of more
        fields to set in the same write. Returns the ``Order`` as this change
        left it (the document read, with the change applied). After a dropped
        connection the change counts as done when ``history`` ends with its
        very entry. Raises ``InvalidTransition`` when the order is not in a
        status ``status`` may follow, ``OrderError`` when there is no such order.
        """
        allowed = [before for before, after in self.model.TRANSITIONS.items() if status in after]
        entry = {"status": status, "at": clock.now(), "note": note}
        changes = {"status": status, **(extra or {})}
        while True:
            document = self.collection.find_one({"number": number})
            if document is None:
                raise OrderError(f"No order {number}.")
            if document["status"] not in allowed:
                raise InvalidTransition(number, document["status"], status)
            if write_once(
                    lambda: self.collection.update_one(
                        {"_id": document["_id"], "status": document["status"]},
                        {"$set": changes, "$push": {"history": entry}}).matched_count,
                    lambda: self._ends_with(document["_id"], entry)):
                document.update(changes)
                document["history"] = [*document.get("history", []), entry]
                return self.from_document(_as_read(document))

    def add_shipment(self, number, units, carrier, tracking, shipped_on, by=""):
        """Record a shipment of order ``number``: ``units`` is ``{line index: units}`` (ints > 0),
        ``carrier`` a key of ``SHOP_CARRIERS``, ``tracking`` the carrier's number, ``shipped_on``
        a ``datetime.date``, ``by`` the staff username.

        One read, then one conditional ``update_one`` by ``_id`` that matches only while the
        status and every line's ``shipped`` units are still the ones read (compare-and-set,
        retried from the read when another shipment came first): it raises the lines'
        ``shipped``, pushes the shipment and the history entry, and sets the status that
        follows from the lines (``Order.status_from_lines``), all in the same write. So units
        shipped per line never exceed ``qty``, however many staff ship at once. After a
        dropped connection the write counts as done when the order holds this very shipment.

        Returns ``(Order, Shipment)`` as this write left them. Raises ``OrderError`` (no such
        order, no units, a line index out of range, more units than are left to ship) and
        ``InvalidTransition`` (the order is not paid or partly shipped).
        """
        if not units or any(not isinstance(n, int) or n < 1 for n in units.values()):
            raise OrderError(f"Order {number}: a shipment needs at least one unit of a line.")
        mine = str(ObjectId())
        while True:
            document = self.collection.find_one({"number": number})
            if document is None:
                raise OrderError(f"No order {number}.")
            status = document["status"]
            if status not in (self.model.PAID, self.model.PARTLY_SHIPPED):
                raise InvalidTransition(number, status, self.model.SHIPPED)
            lines = document.get("lines") or []
            sent = [line.get("shipped") or 0 for line in lines]
            after = list(sent)
            parcel = []
            for index in sorted(units):
                if not isinstance(index, int) or not 0 <= index < len(lines):
                    raise OrderError(f"Order {number} has no line {index}.")
                left = lines[index]["qty"] - sent[index]
                if units[index] > left:
                    raise OrderError(f"Order {number}: only {left} unit(s) of {lines[index]['sku']} "
                                     "are left to ship.")
                after[index] += units[index]
                parcel.append({"line": index, "sku": lines[index]["sku"], "title": lines[index]["title"],
                               "qty": units[index]})
            new_status = self.model.status_from_lines([(line["qty"], n) for line, n in zip(lines, after)])
            shipments = document.get("shipments") or []
            shipment = {"number": len(shipments) + 1, "lines": parcel, "carrier": carrier, "tracking": tracking,
                        "shipped_on": datetime.datetime.combine(shipped_on, datetime.time()), "by": by,
                        "at": clock.now(), "write": mine}
            note = f"shipment {shipment['number']}: {sum(n for n in units.values())} unit(s), {carrier} {tracking}"
            entry = {"status": new_status, "at": shipment["at"], "note": note.strip()[:300]}
            # A line never shipped may lack the field: "$not $gt 0" matches 0 and missing alike.
            guard = {f"lines.{i}.shipped": (n if n else {"$not": {"$gt": 0}}) for i, n in enumerate(sent)}
            if write_once(
                    lambda: self.collection.update_one(
                        {"_id": document["_id"], "status": status, **guard},
                        {"$inc": {f"lines.{i}.shipped": n for i, n in units.items()},
                         "$set": {"status": new_status},
                         "$push": {"shipments": shipment, "history": entry}}).matched_count,
                    lambda: self.collection.find_one(
                        {"_id": document["_id"], "shipments.write": mine}, {"_id": 1}) is not None):
                for i, n in enumerate(after):
                    lines[i]["shipped"] = n
                document["status"] = new_status
                document["shipments"] = [*shipments, shipment]
                document["history"] = [*document.get("history", []), entry]
                order = self.from_document(_as_read(document))
                return order, order.shipments[-1]

    def add_note(self, number, text, by):
        """Add staff's note ``text`` (1..1000 characters, stripped) by ``by`` to order ``number``
        (one ``update_one`` ``$push``). Raises ``OrderError`` for an empty note or no such order."""
        text = (text or "").strip()
        if not text or len(text) > 1000:
            raise OrderError("A note is 1 to 1000 characters.")
        result = self.collection.update_one({"number": number},
                                            {"$push": {"notes": {"text": text, "by": by, "at": clock.now()}}})
        if not result.matched_count:
            raise OrderError(f"No order {number}.")

    def _ends_with(self, order_id, entry):
        """True when the ``history`` of order ``order_id`` ends with ``entry`` (one read)."""
        document = self.collection.find_one({"_id": order_id}, {"history": 1})
        history = (document or {}).get("history") or []
        return bool(history) and _as_read(history[-1]) == _as_read(entry)

    def mark_restocked(self, number):
        """Record that a cancelled order's units are back in stock (one conditional write); True if done."""
        # A dropped connection: done when the order is marked (by this write; a retry finds it so).
        return bool(write_once(
            lambda: self.collection.update_one(
                {"number": number, "status": {"$in": ["cancelled", "refunded"]}, "restocked": {"$ne": True}},
                {"$set": {"restocked": True}},
            ).modified_count,
            lambda: self.collection.find_one({"number": number, "restocked": True}, {"_id": 1}) is not None))

    # -- refunds (orders.refunds) ------------------------------------------------------

    def reserve_refund(self, number, request, amount, by, reason, most):
        """Record a pending refund of ``amount`` cents on order ``number`` for the admin form
        ``request`` (one conditional write): only if that request is not on the order yet and
        ``refunded`` stays within ``most`` cents. True when recorded (this press refunds).

        After a dropped connection the write counts as done only when the order holds this
        very write's entry (its own ``write`` id): a second press of the same ``request``,
        refused, is never taken for this one.
        """
        mine = str(ObjectId())
        return bool(write_once(
            lambda: self.collection.update_one(
                {"number": number, "refunds.request": {"$ne": request},
                 "refunded": {"$not": {"$gt": most - amount}}},
                {"$push": {"refunds": {"request": request, "refund_id": "", "amount": amount, "by": by,
                                       "at": clock.now(), "reason": reason, "status": "pending",
                                       "write": mine}},
                 "$inc": {"refunded": amount}},
            ).modified_count,
            lambda: self.collection.find_one({"number": number, "refunds.write": mine}, {"_id": 1}) is not None))

    def confirm_refund(self, number, request, refund_id):
        """The pending refund ``request`` of order ``number`` went through as Stripe's ``refund_id``
        (one write, positional ``$`` with ``update_one``: SecantusDB refuses it in findAndModify).
        After a dropped connection it counts as done when the entry carries ``refund_id``."""
        write_once(
            lambda: self.collection.update_one(
                {"number": number, "refunds.request": request},
                {"$set": {"refunds.$.refund_id": refund_id, "refunds.$.status": "succeeded"}},
            ),
            lambda: self.collection.find_one(
                {"number": number, "refunds": {"$elemMatch": {"request": request, "refund_id": refund_id}}},
                {"_id": 1}) is not None)

    def drop_refund(self, number, request, amount, units=None):
        """Take back the pending refund ``request`` Stripe refused (one conditional write);
        ``units`` (``{line index: units}``) the lines' ``refunded_units`` it had taken."""
        self.collection.update_one(
            {"number": number, "refunds": {"$elemMatch": {"request": request, "status": "pending"}}},
            {"$pull": {"refunds": {"request": request}},
             "$inc": {"refunded": -amount, **{f"lines.{i}.refunded_units": -n for i, n in (units or {}).items()}}},
        )

    def reserve_line_refund(self, number, request, units, by, reason, restock):
        """Record a pending refund of ``units`` (``{line index: units}``) of order ``number`` for
        the form ``request`` (a one-time key): the amount is what was paid for those units
        (``pricing.refund_of_units`` on the lines' stored shares, after the units refunded
        before). ``restock``: the units go back to stock afterwards (``claim_restock``).

        One read, then one conditional ``update_one`` that matches only while the request is
        not on the order, every line's ``refunded_units`` is the one read (compare-and-set,
        retried from the read) and ``refunded`` stays within the total: it pushes the refund,
        raises ``refunded`` and the lines' ``refunded_units``, and for an order that has
        shipped sets "partly returned" / "returned" with its history entry, in the same write.

        Returns the cents reserved, or 0 when this ``request`` is already on the order.
        Raises ``OrderError`` (no such order, no units, a bad line, more units than are left
        to refund, more money than is left) and nothing is written then.
        """
        if not units or any(not isinstance(n, int) or n < 1 for n in units.values()):
            raise OrderError(f"Order {number}: a refund of lines needs at least one unit.")
        mine = str(ObjectId())
        while True:
            document = self.collection.find_one({"number": number})
            if document is None:
                raise OrderError(f"No order {number}.")
            if any(entry.get("request") == request for entry in document.get("refunds") or []):
                return 0
            lines = document.get("lines") or []
            before = [line.get("refunded_units") or 0 for line in lines]
            amount, parcel = 0, []
            for index in sorted(units):
                if not isinstance(index, int) or not 0 <= index < len(lines):
                    raise OrderError(f"Order {number} has no line {index}.")
                line = lines[index]
                if units[index] > line["qty"] - before[index]:
                    raise OrderError(f"Order {number}: only {line['qty'] - before[index]} unit(s) of "
                                     f"{line['sku']} are left to refund.")
                amount += pricing.refund_of_units(line, units[index], before[index])["amount"]
                parcel.append({"line": index, "sku": line["sku"], "title": line["title"], "qty": units[index]})
            total, refunded = document["total"], document.get("refunded") or 0
            if amount > total - refunded:
                raise OrderError(f"Order {number}: only {total - refunded} cents are left to refund.")
            status = document["status"]
            changes, pushes = {}, {}
            now = clock.now()
            if status in (self.model.SHIPPED, self.model.DELIVERED, self.model.PARTLY_RETURNED):
                after = [n + units.get(i, 0) for i, n in enumerate(before)]
                new_status = (self.model.RETURNED if all(n >= line["qty"] for n, line in zip(after, lines))
                              else self.model.PARTLY_RETURNED)
                changes["status"] = new_status
                pushes["history"] = {"status": new_status, "at": now,
                                     "note": f"{sum(units.values())} unit(s) refunded"[:300]}
            pushes["refunds"] = {"request": request, "refund_id": "", "amount": amount, "by": by, "at": now,
                                 "reason": reason, "status": "pending", "lines": parcel,
                                 "restock": "due" if restock else "", "write": mine}
            guard = {f"lines.{i}.refunded_units": (n if n else {"$not": {"$gt": 0}}) for i, n in enumerate(before)}
            update = {"$push": pushes,
                      "$inc": {"refunded": amount, **{f"lines.{i}.refunded_units": n for i, n in units.items()}}}
            if changes:
                update["$set"] = changes
            if write_once(
                    lambda: self.collection.update_one(
                        {"_id": document["_id"], "status": status, "refunds.request": {"$ne": request},
                         "refunded": {"$not": {"$gt": total - amount}}, **guard}, update).matched_count,
                    lambda: self.collection.find_one(
                        {"_id": document["_id"], "refunds.write": mine}, {"_id": 1}) is not None):
                return amount

    def claim_restock(self, number, request):
        """Claim the restock of refund ``request`` of order ``number``: one conditional write
        that turns its ``restock`` from "due" to "done" and raises the lines' ``restocked``
        units, so only one caller ever puts those units back. Returns the refund's
        ``{sku: units}`` to return to stock, or {} when there is nothing due (done already,
        or no restock asked). The caller then calls ``Inventory.objects.return_units``.
        """
        document = self.collection.find_one({"number": number, "refunds.request": request}, {"refunds": 1})
        entry = next((e for e in (document or {}).get("refunds") or [] if e.get("request") == request), None)
        if entry is None or entry.get("restock") != "due" or entry.get("status") != "succeeded":
            return {}
        result = self.collection.update_one(
            {"number": number, "refunds": {"$elemMatch": {"request": request, "restock": "due"}}},
            {"$set": {"refunds.$.restock": "done"},
             "$inc": {f"lines.{line['line']}.restocked": line["qty"] for line in entry.get("lines") or []}},
        )
        if not result.modified_count:
            return {}
        units = {}
        for line in entry.get("lines") or []:
            units[line["sku"]] = units.get(line["sku"], 0) + line["qty"]
        return units

    def add_provider_refund(self, reference, refund_id, amount, reason):
        """Record Stripe's refund ``refund_id`` (made outside the admin) on the order paid by
        ``reference``, unless it is recorded already or an admin refund is pending (one
        conditional write). True when added."""
        result = self.collection.update_one(
            {"payment.reference": reference, "refunds.refund_id": {"$ne": refund_id},
             "refunds.request": {"$ne": refund_id}, "refunds.status": {"$ne": "pending"}},
            {"$push": {"refunds": {"request": refund_id, "refund_id": refund_id, "amount": amount, "by": "stripe",
                                   "at": clock.now(), "reason": reason, "status": "succeeded"}},
             "$inc": {"refunded": amount}},
        )
        return bool(result.modified_count)

    def restocks_due(self):
        """``[(order number, refund request)]`` of the refunds of lines that went through with their
        units still due back in stock (a crash between the refund and ``claim_restock``): one
        read on the ``refunds.restock`` index (few entries are "due"), projected."""
        found = []
        for document in self.collection.find({"refunds.restock": "due"}, {"number": 1, "refunds": 1}):
            for entry in document.get("refunds") or []:
                if entry.get("restock") == "due" and entry.get("status") == "succeeded":
                    found.append((document["number"], entry["request"]))
        return found
    # -- invoices and credit notes (orders.invoices) ----------------------------------------

    def without_invoice(self, before, limit=1000):
        """The orders placed before ``before`` (aware UTC) that have no invoice yet (no
        ``invoice_number``, or ""), oldest first, at most ``limit`` (one read on the
        ``order_invoice_due`` index: only the orders still due match)."""
        cursor = self.collection.find({"invoice_number": {"$in": [None, ""]}, "placed_at": {"$lt": before}})
        return [self.from_document(document) for document in cursor.sort("placed_at", 1).limit(limit)]

    def refunded_since(self, since, limit=1000):
        """The orders with a refund recorded at or after ``since`` (aware UTC), at most
        ``limit`` (one read on the ``refunds.at`` index)."""
        cursor = self.collection.find({"refunds.at": {"$gte": since}}).limit(limit)
        return [self.from_document(document) for document in cursor]
