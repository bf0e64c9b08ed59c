"""``EventManager`` (``Event.objects``): writes the "Hierarchical Aggregation" use case's raw ``events``.

Product views, add-to-cart events, sales (one per sold line; the receivers in
``analytics/receivers.py`` call it on the shop's signals), and historical
sales imported by ``load_sales``.
"""

import re

from django.db import models
from pymongo import WriteConcern

from core import clock
from core.mongo.collections import MongoCollectionMixin

from ..pipelines import ORDER_REF_PREFIX

#: The write concern of product view events (``record_view``): sent, never waited for.
UNACKNOWLEDGED = WriteConcern(w=0)


class EventManager(MongoCollectionMixin, models.Manager):
    """Writes the "Hierarchical Aggregation" use case's raw ``events``: ``{type, sku, qty, amount, userid, ts, recorded[, ref]}``."""

    def _document(self, type, sku, qty=1, amount=0, userid="", ts=None, ref=None):
        now = clock.now()
        document = {
            "type": type,
            "sku": str(sku),
            "qty": int(qty),
            "amount": int(amount),
            "userid": str(userid or ""),
            "ts": clock.aware(ts) or now,
            "recorded": now,
        }
        if ref is not None:
            document["ref"] = str(ref)
        return document

    def record_view(self, sku, userid=""):
        """Record that a shopper viewed product ``sku`` now. One write, not waited for; returns None.

        ``userid``: the customer's e-mail, ``"guest:<HMAC of the session key>"`` or ``""``.
        The insert is unacknowledged (write concern ``w: 0``, as MongoDB
        suggests for high-volume event logging): the product page sends it
        and goes on, where an acknowledged insert made every product page
        wait for the server's durable commit (about 1 ms, a third of a warm
        page). A view is the one write whose loss costs nothing but a
        count: one the server fails to store (it went down at that moment)
        is lost without an error. A later operation on the same connection
        (the pool hands a thread its last connection back) is served after
        it, so the thread's next read sees it. Add-to-cart and sale events
        stay acknowledged.
        """
        self.collection.with_options(write_concern=UNACKNOWLEDGED).insert_one(
            self._document(self.model.VIEW, sku, userid=userid))

    def record_add_to_cart(self, sku, qty=1, userid=""):
        """Record that a shopper put ``qty`` units of ``sku`` in a cart now. One write.

        For the cart's code (inventory): call it once per successful add.
        Raises ValueError for a quantity below 1 (nothing is written).
        """
        if int(qty) < 1:
            raise ValueError("An add-to-cart event needs a quantity of at least 1.")
        self.collection.insert_one(self._document(self.model.CART, sku, qty=qty, userid=userid))

    def record_order(self, cart_id, lines, userid="", ts=None):
        """Record one sale event per line of a completed order; idempotent per cart.

        ``lines``: ``[{"sku": str, "qty": int, "price": int cents per unit, "discount": int
        cents off the line (optional)}, ...]`` (the ``order_placed`` signal's). Each line's
        ``amount`` is its ``"amount"`` when given (its part of the order's total, what was
        paid for it: ``receivers.record_completed_order``), else ``price * qty`` cents; its
        ``discount`` the line's share of the order's discounts (already taken off its
        ``amount``: a figure shown beside revenue, never subtracted again); its ``ref`` is
        ``order:<cart_id>:<line number>``,
        so a signal delivered twice (same cart, shopper and ``ts``) writes
        nothing the second time (one upsert per line). ``ts``: when the order
        completed (aware UTC; default now). Returns the number of sale events
        written.
        """
        written = 0
        for number, line in enumerate(lines, start=1):
            qty, price = int(line["qty"]), int(line["price"])
            document = self._document(
                self.model.SALE, line["sku"], qty=qty, amount=int(line.get("amount", price * qty)), userid=userid, ts=ts,
                ref=f"{ORDER_REF_PREFIX}{cart_id}:{number}",
            )
            document["discount"] = int(line.get("discount") or 0)
            # The filter holds the shard key of events, (userid, ts): an upsert on a
            # sharded collection needs it.
            result = self.collection.update_one(
                {"userid": document["userid"], "ts": document["ts"], "ref": document["ref"]},
                {"$setOnInsert": document}, upsert=True,
            )
            written += 1 if result.upserted_id is not None else 0
        return written

    def record_refund(self, number, request, amount, ts=None):
        """Record that ``amount`` cents of order ``number`` were refunded (the refund ``request``),
        once: one upsert on ``ref`` ``refund:<number>:<request>`` (a signal delivered twice writes
        nothing more). ``ts``: when (aware UTC; default now). Returns True when written."""
        document = self._document(self.model.REFUND, "", qty=0, amount=amount, ts=ts,
                                  ref=f"refund:{number}:{request}")
        result = self.collection.update_one(
            {"userid": document["userid"], "ts": document["ts"], "ref": document["ref"]},
            {"$setOnInsert": document}, upsert=True,
        )
        return result.upserted_id is not None

    def import_sales(self, sales, ref_prefix):
        """Import historical sale events, each once: returns ``(written, already_there)``.

        ``sales``: dicts ``{ref, sku, qty, amount (cents), userid, ts (aware UTC)}``
        whose ``ref`` starts with ``ref_prefix`` (e.g. ``"chinook:"``). The refs
        already stored under that prefix are read in one query and only the
        missing sales are inserted (one ``insert_many``), so a second import
        of the same sales writes nothing. Raises ValueError for a sale whose
        ref lacks the prefix (nothing is written).
        """
        sales = list(sales)
        for sale in sales:
            if not str(sale["ref"]).startswith(ref_prefix):
                raise ValueError(f"Sale ref {sale['ref']!r} does not start with {ref_prefix!r}.")
        pattern = "^" + re.escape(ref_prefix)
        stored = {d["ref"] for d in self.collection.find({"ref": {"$regex": pattern}}, {"ref": 1})}
        missing = [
            self._document(self.model.SALE, s["sku"], qty=s["qty"], amount=s["amount"],
                           userid=s.get("userid", ""), ts=s["ts"], ref=s["ref"])
            for s in sales if s["ref"] not in stored
        ]
        if missing:
            self.collection.insert_many(missing, ordered=False)
        return len(missing), len(sales) - len(missing)

    def insert_generated(self, documents):
        """Insert ready-made event documents (the benchmark's generator); returns how many.

        Each document needs ``type, sku, qty, amount, userid, ts``;
        ``recorded`` defaults to now.
        """
        documents = list(documents)
        now = clock.now()
        for document in documents:
            document.setdefault("recorded", now)
        if documents:
            self.collection.insert_many(documents, ordered=False)
        return len(documents)
