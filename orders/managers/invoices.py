"""Invoices and credit notes (``invoices``): issuing one under a gapless number, as raw pymongo
on ``Invoice.objects``.

A number is gapless per kind and year: the documents of a kind and year hold ``seq`` 1..N
with no hole and no repeat. Two ways, the same guarantees:

* **In a transaction** (a server with multi-document transactions: the shop's local
  server, a replica set, a sharded cluster): the year's counter (``counters {_id:
  "invoice:2026", seq}``) is raised by ``$inc`` (an ``update_one``, upserted on first use, then a
  read of it in the transaction), the document inserted with that ``seq`` and the order
  marked (its ``invoice_number``, or the refund's ``credit_note``), then committed: the
  three writes land together or not at all, so a crash leaves no number used without its
  document. Two transactions raising one counter conflict and one is retried
  (``with_transaction``), so no number is given twice.
* **By claim** (a standalone MongoDB, which has no transactions: the server answers
  ``IllegalOperation``): the highest ``seq`` of the kind and year is read (one indexed read)
  and the document inserted with the next one; the unique index on (kind, year, seq) refuses
  a number another issuer took meanwhile (read again, try the next). The document *is* the
  claim of its number, so a crash can leave no gap. The order is marked afterwards (a
  second write; recovery redoes it when a crash came between).

Either way ``source`` is unique ("invoice:<order number>", "credit:<order number>:<refund
request>"): a sale or refund gets one document, however many callers issue it at once
(after the response, recovery), and a second caller gets the first's document back.
"""

import logging

from django.db import connections, models
from pymongo import DESCENDING
from pymongo.errors import ConfigurationError, DuplicateKeyError, OperationFailure

from core.mongo.collections import MongoCollectionMixin

from .orders import _as_read

logger = logging.getLogger(__name__)

COUNTERS = "counters"
PREFIXES = {"invoice": "INV", "credit_note": "CN"}
WIDTH = 6
# MongoDB's answer to a transaction on a standalone server ("Transaction numbers are only
# allowed on a replica set member or mongos"): IllegalOperation.
ILLEGAL_OPERATION = 20


def format_number(kind, year, seq):
    """The printed number of ``seq`` (int >= 1) of ``kind`` ("invoice", "credit_note") in
    ``year``: ``INV-2026-000123``, ``CN-2026-000004`` (at least ``WIDTH`` digits)."""
    return f"{PREFIXES[kind]}-{year}-{seq:0{WIDTH}d}"


class InvoiceManager(MongoCollectionMixin, models.Manager):
    """Invoices and credit notes: issue under a gapless number, read by order or number."""

    #: None: use transactions when the server has them (found out on first use, per process);
    #: False: always by claim (a standalone MongoDB; tests set it to run that path).
    use_transactions = None

    # -- issuing ------------------------------------------------------------------

    def issue(self, document, mark):
        """Issue ``document`` (the raw shape of ``Invoice`` without ``number`` and ``seq``;
        ``kind``, ``year`` and ``source`` set) under the next number of its kind and year, and
        mark its order: ``mark(number)`` gives ``(filter, update)`` on ``orders`` (e.g. set the
        order's ``invoice_number`` to ``number``), applied in the same transaction (or right
        after the claim), and again when the document already exists.

        Returns ``(Invoice, issued)``: ``issued`` False when ``source`` had its document already
        (that one is returned: never a second number). 1 read when it exists; else about 5
        round trips in a transaction, 3 by claim (more when issuers collide).
        Raises what the database raises (nothing is then issued).
        """
        existing = self.collection.find_one({"source": document["source"]})
        if existing is not None:
            self._mark(mark, existing["number"])
            return self.from_document(existing), False
        if self.use_transactions is not False:
            try:
                return self._issue_in_transaction(document, mark)
            except (OperationFailure, ConfigurationError) as error:
                if not _no_transactions(error):
                    raise
                logger.info("Invoices: this MongoDB has no transactions; numbers are claimed by a unique index.")
                type(self).use_transactions = False
        return self._issue_by_claim(document, mark)

    def _issue_in_transaction(self, document, mark):
        connection = connections[self.db]
        client, counters = connection.database.client, connection.get_collection(COUNTERS)
        counter_id = f"{document['kind']}:{document['year']}"
        while True:
            issued = {}

            def body(session):
                counters.update_one({"_id": counter_id}, {"$inc": {"seq": 1}}, upsert=True, session=session)
                seq = counters.find_one({"_id": counter_id}, session=session)["seq"]
                row = {**document, "seq": seq, "number": format_number(document["kind"], document["year"], seq)}
                self.collection.insert_one(row, session=session)
                filter_, update = mark(row["number"])
                self.get_collection("orders").update_one(filter_, update, session=session)
                issued["row"] = row

            try:
                with client.start_session() as session:
                    session.with_transaction(body)
                return self.from_document(_as_read(issued["row"])), True
            except DuplicateKeyError:
                existing = self.collection.find_one({"source": document["source"]})
                if existing is not None:  # another caller issued it first (its transaction won)
                    self._mark(mark, existing["number"])
                    return self.from_document(existing), False
                # The counter is behind the documents (numbers claimed without a transaction
                # before, on a standalone server): bring it up to the highest, then again.
                counters.update_one({"_id": counter_id}, {"$max": {"seq": self._highest(document)}}, upsert=True)

    def _issue_by_claim(self, document, mark):
        while True:
            seq = self._highest(document) + 1
            row = {**document, "seq": seq, "number": format_number(document["kind"], document["year"], seq)}
            try:
                self.collection.insert_one(row)
            except DuplicateKeyError:
                existing = self.collection.find_one({"source": document["source"]})
                if existing is not None:
                    self._mark(mark, existing["number"])
                    return self.from_document(existing), False
                continue  # another issuer took this number: read the highest again
            self._mark(mark, row["number"])
            return self.from_document(_as_read(row)), True

    def _highest(self, document):
        """The highest ``seq`` of ``document``'s kind and year (0 for none): one read on the
        unique (kind, year, seq) index."""
        last = self.collection.find_one({"kind": document["kind"], "year": document["year"]}, {"seq": 1},
                                        sort=[("kind", DESCENDING), ("year", DESCENDING), ("seq", DESCENDING)])
        return last["seq"] if last else 0

    def _mark(self, mark, number):
        filter_, update = mark(number)
        self.get_collection("orders").update_one(filter_, update)

    # -- reads ----------------------------------------------------------------------

    def for_order(self, order_number):
        """The invoice and credit notes of order ``order_number``, oldest first (one read)."""
        if not isinstance(order_number, str) or not order_number:
            return []
        cursor = self.collection.find({"order_number": order_number}).sort([("issued_at", 1), ("seq", 1)])
        return [self.from_document(document) for document in cursor]

    def get_by_number(self, number):
        """The document numbered ``number`` (e.g. "INV-2026-000001"; one read), or None."""
        if not isinstance(number, str) or not number:
            return None
        document = self.collection.find_one({"number": number})
        return None if document is None else self.from_document(document)

    def numbers_of(self, kind, year):
        """The ``seq`` of every document of ``kind`` in ``year``, ascending (one read; for checks)."""
        cursor = self.collection.find({"kind": kind, "year": int(year)}, {"seq": 1}).sort("seq", 1)
        return [document["seq"] for document in cursor]


def _no_transactions(error):
    """True when ``error`` says the server has no multi-document transactions."""
    if isinstance(error, ConfigurationError):
        return "session" in str(error).lower() or "transaction" in str(error).lower()
    return error.code == ILLEGAL_OPERATION or "Transaction numbers are only allowed" in str(error)
