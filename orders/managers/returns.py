"""Returns a shopper starts (``returns``), as raw pymongo on ``ReturnRequest.objects``.

A return's status changes only by ``move``: one ``update_one`` by ``_id`` that matches while
the return is still in the status read and pushes the event in the same write, so two staff
clicking at once act once. The units a return holds are claimed on the order
(``claim_units``: one conditional write on the order's lines, compare-and-set on the units
read), so two tabs asking at once never return more units than were shipped.
Views, commands and admin classes call these methods; none builds a query.
"""

import datetime

from bson import ObjectId
from bson.errors import InvalidId
from django.db import models

from core import clock
from core.mongo.collections import MongoCollectionMixin
from core.mongo.writes import write_once

from ..exceptions import OrderError
from .orders import _as_read

ORDERS = "orders"
#: Order statuses whose lines count as shipped in full when no shipment was recorded
#: ("Mark shipped" on the whole order sets no line's ``shipped``).
SHIPPED_WHOLE = ("shipped", "delivered", "partly returned", "returned")


def shipped_units(order, index):
    """Units of line ``index`` of ``order`` (a raw document) that left: the line's ``shipped``,
    or its ``qty`` for an order shipped whole without shipments."""
    line = order["lines"][index]
    if line.get("shipped"):
        return line["shipped"]
    if not order.get("shipments") and order.get("status") in SHIPPED_WHOLE:
        return line["qty"]
    return 0


def returnable_units(order, index):
    """Units of line ``index`` of ``order`` (a raw document) the shopper may still ask to return:
    shipped, less those refunded and those held by open returns."""
    line = order["lines"][index]
    return max(0, shipped_units(order, index) - (line.get("refunded_units") or 0)
               - (line.get("return_requested") or 0))


def _object_id(value):
    try:
        return ObjectId(str(value))
    except (InvalidId, TypeError):
        return None


class ReturnRequestManager(MongoCollectionMixin, models.Manager):
    """Returns: asking (claiming the units on the order), reading, status changes."""

    @property
    def orders(self):
        """The ``orders`` collection (the units a return holds are claimed there)."""
        return self.get_collection(ORDERS)

    # -- reads -------------------------------------------------------------------

    def order_document(self, number):
        """The raw document of order ``number`` (one read), or None: what the window and the units
        left are computed from (``returnable_units``, ``orders.returns.check_window``)."""
        return self.orders.find_one({"number": number})

    def get_by_id(self, return_id):
        """The return ``return_id`` (its ``_id`` as text; one read), or None (also for text that is
        not an id)."""
        oid = _object_id(return_id)
        document = None if oid is None else self.collection.find_one({"_id": oid})
        return None if document is None else self.from_document(document)

    def for_order(self, order):
        """The returns of ``order`` (an ``Order``) that hold or held units (``order.return_ids``),
        newest first (one read by ``_id``; none when the order has no return)."""
        ids = [oid for oid in map(_object_id, order.return_ids or ()) if oid is not None]
        if not ids:
            return []
        documents = self.collection.find({"_id": {"$in": ids}}).sort([("requested_at", -1), ("_id", -1)])
        return [self.from_document(document) for document in documents]

    def in_status(self, status):
        """Returns in ``status`` (one read on the ``status, requested_at`` index), oldest first."""
        return [self.from_document(d) for d in self.collection.find({"status": status}).sort("requested_at", 1)]

    # -- asking ------------------------------------------------------------------

    def request(self, number, units, reason, comment, by, user_id, check):
        """Ask to return ``units`` (``{line index: units}``, ints > 0) of order ``number`` for
        ``reason`` (a key of ``SHOP_RETURN_REASONS``) with ``comment``; ``by`` the shopper's
        e-mail, ``user_id`` their account or "". ``check(order document)`` raises
        ``OrderError`` when the order may not be returned now (the window).

        Inserts the return (status requested), then claims its units on the order in one
        conditional ``update_one`` that matches only while every line's refunded and requested
        units are the ones read (compare-and-set, retried from the read): it raises
        ``lines.return_requested`` and adds the return to ``return_ids`` and ``open_returns``.
        A claim refused (more units than are left to return) deletes the return again; a crash
        between the two writes leaves a return no order lists (never shown, holding nothing).

        Returns the ``ReturnRequest``. Raises ``OrderError`` (no such order, no units, a bad
        line, more units than shipped less those returned or asked for, outside the window).
        """
        if not units or any(not isinstance(n, int) or n < 1 for n in units.values()):
            raise OrderError("Choose at least one unit to return.")
        now = clock.now()
        document = self.orders.find_one({"number": number})
        if document is None:
            raise OrderError(f"No order {number}.")
        check(document)
        parcel = self._parcel(document, units)
        oid = ObjectId()
        request = {"_id": oid, "order_number": number, "user_id": user_id, "email": document["email"],
                   "status": "requested", "lines": parcel, "reason": reason, "comment": comment,
                   "requested_at": now, "refund_request": f"return-{oid}", "amount": 0,
                   "events": [{"status": "requested", "at": now, "by": by,
                               "note": f"{sum(units.values())} unit(s): {reason}"}]}
        write_once(lambda: self.collection.insert_one(request),
                   lambda: self.collection.find_one({"_id": oid}, {"_id": 1}) is not None)
        try:
            while True:
                lines = document["lines"]
                guard = {}
                for i, line in enumerate(lines):
                    for field in ("refunded_units", "return_requested"):
                        n = line.get(field) or 0
                        guard[f"lines.{i}.{field}"] = n if n else {"$not": {"$gt": 0}}
                if write_once(
                        lambda: self.orders.update_one(
                            {"_id": document["_id"], "status": document["status"], "return_ids": {"$ne": str(oid)},
                             **guard},
                            {"$inc": {f"lines.{i}.return_requested": n for i, n in units.items()},
                             "$push": {"return_ids": str(oid), "open_returns": str(oid)}}).matched_count,
                        lambda: self.orders.find_one({"_id": document["_id"], "return_ids": str(oid)},
                                                     {"_id": 1}) is not None):
                    break
                document = self.orders.find_one({"_id": document["_id"]})
                check(document)
                self._parcel(document, units)  # raises when the units are no longer left
        except Exception:
            self.collection.delete_one({"_id": oid})
            raise
        return self.from_document(_as_read(request))

    @staticmethod
    def _parcel(document, units):
        """The return's lines for ``units`` of order ``document``; raises ``OrderError`` for a bad
        line or more units than may be returned."""
        lines, parcel = document.get("lines") or [], []
        for index in sorted(units):
            if not isinstance(index, int) or not 0 <= index < len(lines):
                raise OrderError(f"Order {document['number']} has no line {index}.")
            left = returnable_units(document, index)
            if units[index] > left:
                line = lines[index]
                raise OrderError(f"Only {left} unit(s) of {line['title']} can be returned "
                                 f"({shipped_units(document, index)} shipped, less those returned or "
                                 "already asked for).")
            parcel.append({"line": index, "sku": lines[index]["sku"], "title": lines[index]["title"],
                           "qty": units[index]})
        return parcel

    # -- status changes ------------------------------------------------------------

    def move(self, return_id, before, after, by, note="", extra=None):
        """Move return ``return_id`` from ``before`` (a status or a tuple of them) to ``after``:
        one ``update_one`` by ``_id`` matching only while the status is ``before``, pushing
        ``{status, at, by, note}`` onto ``events`` and setting ``extra`` (a dict) in the same
        write. Returns the ``ReturnRequest`` after the change, or None when the return was not
        in ``before`` (another click came first; nothing written)."""
        oid = _object_id(return_id)
        if oid is None:
            return None
        before = (before,) if isinstance(before, str) else tuple(before)
        event = {"status": after, "at": clock.now(), "by": by, "note": note[:1000]}
        mine = str(ObjectId())
        changed = write_once(
            lambda: self.collection.update_one(
                {"_id": oid, "status": {"$in": list(before)}},
                {"$set": {"status": after, "write": mine, **(extra or {})}, "$push": {"events": event}}).modified_count,
            lambda: self.collection.find_one({"_id": oid, "write": mine}, {"_id": 1}) is not None)
        if not changed:
            return None
        return self.get_by_id(oid)

    def release_units(self, request):
        """Give back the units ``request`` (a ``ReturnRequest``) holds on its order (refused or
        refunded): one conditional write that takes it out of ``open_returns`` and lowers the
        lines' ``return_requested``; only the first call does it. True when released."""
        rid = str(request.pk)
        return bool(self.orders.update_one(
            {"number": request.order_number, "open_returns": rid},
            {"$pull": {"open_returns": rid},
             "$inc": {f"lines.{line.line}.return_requested": -line.qty for line in request.lines}},
        ).modified_count)

    def holding_units(self, request):
        """True when ``request`` still holds its units on the order (one read)."""
        return self.orders.find_one({"number": request.order_number, "open_returns": str(request.pk)},
                                    {"_id": 1}) is not None


#: When a return in "refunding" counts as interrupted (recovery): seconds since its last event.
INTERRUPTED_AFTER = datetime.timedelta(minutes=5)
