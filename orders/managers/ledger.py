"""The payment ledger's MongoDB operations, as raw pymongo on ``PaymentAttempt.objects``.

Checkout records an attempt (``begin``) before it calls the provider, and
moves it on with conditional single-document writes: each matches only
while the attempt is in the status the change may follow, so a live
checkout and ``reconcile_payments`` can never both decide an attempt's
fate. The statuses are ``PaymentAttempt``'s (``models.py``).
"""

import datetime

from bson import ObjectId

from django.db import models
from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo.collections import MongoCollectionMixin
from core.mongo.writes import carries, write_once

from ..exceptions import AttemptFenced

CHARGING, CHARGED, COMPLETED, DECLINED, VOID, REFUNDED = (
    "charging", "charged", "completed", "declined", "void", "refunded")
STATUSES = (CHARGING, CHARGED, COMPLETED, DECLINED, VOID, REFUNDED)
UNFINISHED = [CHARGING, CHARGED]


def new_key():
    """A fresh idempotency key: a new ObjectId's 24 hex digits (unique, time-ordered).

    The order the attempt places gets that ObjectId as its ``_id``
    (``checkout.order_id``), so one attempt inserts one order at most.
    """
    return str(ObjectId())


class PaymentAttemptManager(MongoCollectionMixin, models.Manager):
    """The payment ledger: record, move on, take over and list payment attempts."""

    def begin(self, key, cart_id, amount, order):
        """Record attempt ``key`` for cart ``cart_id`` of ``amount`` cents, status ``charging`` (one write).

        ``order`` is the order as priced (a dict: the order document's fields
        but number, status, dates and history), kept for recovery. Raises
        ``AttemptFenced`` when recovery already voided this key (the checkout
        took too long: nothing may be charged now).
        """
        moment = clock.now()
        document = {
            "_id": key, "cart_id": cart_id, "amount": amount, "status": CHARGING, "charge_id": "",
            "intent_id": "", "order_number": "", "created_at": moment, "updated_at": moment, "recovered": False,
            "note": "", "order": order,
        }
        # A dropped connection: the insert is ours when the key holds this very attempt.
        mine = {"cart_id": cart_id, "status": CHARGING, "created_at": moment}
        try:
            write_once(lambda: self.collection.insert_one(document),
                       lambda: carries(self.get_raw(key), mine))
        except DuplicateKeyError:
            raise AttemptFenced() from None

    def get_raw(self, key):
        """The attempt's raw document (one read), or None."""
        return self.collection.find_one({"_id": key})

    def set_intent(self, key, intent_id, card):
        """Record the PaymentIntent ``intent_id`` of the charging attempt ``key`` and the card's
        ``{brand, last4}`` (as the provider reported them) on its priced order (one conditional
        write), *before* the intent is confirmed: recovery can then always ask the provider.

        Returns True when recorded; False when the attempt is no longer ``charging`` (recovery
        voided it: the intent must not be confirmed) or already has an intent. After a dropped
        connection the write counts as done when the attempt holds this very intent.
        """
        return bool(write_once(
            lambda: self.collection.update_one(
                {"_id": key, "status": CHARGING, "intent_id": {"$in": ["", None]}},
                {"$set": {"intent_id": intent_id, "order.card": dict(card), "updated_at": clock.now()}},
            ).modified_count,
            lambda: carries(self.get_raw(key), {"intent_id": intent_id})))

    def _move(self, key, before, fields):
        """Set ``fields`` on attempt ``key`` if its status is in ``before``; the document after, or None.

        A conditional ``update_one`` by ``_id`` and a read of the document (2 round trips), not a
        ``find_one_and_update``: SecantusDB reads the whole collection on every findAndModify
        (docs/local-server-differences.md: local-server difference 3)
        (docs/local-server.md). After a dropped connection the write counts as done when the
        attempt carries this very change (its ``updated_at`` included), else it is tried again.
        """
        fields = {**fields, "updated_at": clock.now()}
        moved = write_once(
            lambda: self.collection.update_one({"_id": key, "status": {"$in": list(before)}},
                                               {"$set": fields}).matched_count,
            lambda: carries(self.get_raw(key), fields))
        return self.get_raw(key) if moved else None

    def mark_charged(self, key, charge_id):
        """charging -> charged with the provider's ``charge_id`` (one write); False when recovery took it over."""
        return self._move(key, [CHARGING], {"status": CHARGED, "charge_id": charge_id}) is not None

    def mark_declined(self, key, reason):
        """charging -> declined: the provider refused, nothing was charged (one write)."""
        self._move(key, [CHARGING], {"status": DECLINED, "note": reason[:300]})

    def mark_completed(self, key, order_number, charge_id="", recovered=False, note=""):
        """charging or charged -> completed with ``order_number`` (one write); True when it moved.

        ``charge_id`` is set when given (recovery learnt it from the provider).
        """
        fields = {"status": COMPLETED, "order_number": order_number, "recovered": recovered, "note": note}
        if charge_id:
            fields["charge_id"] = charge_id
        return self._move(key, UNFINISHED, fields) is not None

    def mark_refunded(self, key, charge_id, note):
        """charging or charged -> refunded (recovery; one write); True when it moved."""
        fields = {"status": REFUNDED, "charge_id": charge_id, "recovered": True, "note": note[:300]}
        return self._move(key, UNFINISHED, fields) is not None

    def void(self, key, cart_id, note):
        """Make attempt ``key`` void: never charged (one or two writes); True when it is void now.

        A ``charging`` attempt becomes ``void``; a key with no attempt gets a
        ``void`` one, which fences the checkout that holds the key (its
        ``begin`` fails, so it never charges).
        """
        moment = clock.now()
        document = {
            "_id": key, "cart_id": cart_id, "amount": 0, "status": VOID, "charge_id": "",
            "order_number": "", "created_at": moment, "updated_at": moment, "recovered": True,
            "note": note, "order": None,
        }
        try:
            write_once(lambda: self.collection.insert_one(document),
                       lambda: carries(self.get_raw(key), {"status": VOID, "created_at": moment}))
            return True
        except DuplicateKeyError:
            return self._move(key, [CHARGING], {"status": VOID, "recovered": True, "note": note}) is not None

    # -- recovery ------------------------------------------------------------------

    def claim(self, key, seconds):
        """Take unfinished attempt ``key`` for ``seconds`` (a lease; one write): its document, or None.

        Two recoveries never work on one attempt at once; a recovery that
        died loses its lease after ``seconds``.
        """
        moment = clock.now()
        # update_one by _id and a read, not find_one_and_update (see ``_move``); after a dropped
        # connection the lease is ours when it holds this very expiry.
        lease = {"lease_until": moment + datetime.timedelta(seconds=seconds)}
        taken = write_once(
            lambda: self.collection.update_one(
                {"_id": key, "status": {"$in": UNFINISHED},
                 "lease_until": {"$not": {"$gt": moment}}},
                {"$set": lease}).matched_count,
            lambda: carries(self.get_raw(key), lease))
        return self.get_raw(key) if taken else None

    def release_claim(self, key):
        """Drop the lease of attempt ``key`` (one write)."""
        self.collection.update_one({"_id": key}, {"$unset": {"lease_until": ""}})

    def unfinished(self, older_than):
        """Raw attempts still charging or charged, recorded before ``older_than`` (an aware UTC
        datetime), oldest first, without their priced order (one indexed read). Recovery
        settles them; ``check_inventory`` lists them as money that may be taken with no order."""
        return list(self.collection.find(
            {"status": {"$in": UNFINISHED}, "created_at": {"$lt": older_than}}, {"order": 0},
        ).sort("created_at", 1))

    def latest_for_cart(self, cart_id):
        """The newest attempt of cart ``cart_id`` as a raw document (one read), or None."""
        if not isinstance(cart_id, str) or not cart_id:
            return None
        return self.collection.find_one({"cart_id": cart_id}, sort=[("created_at", -1)])
