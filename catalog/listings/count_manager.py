"""``ListingCount.objects``: how many products each category lists, kept so a category page
never counts its products on a request (``listing_counts``, one small document per category).

``{_id: category id, listed: n, counted_at, changed_at, writing: n}``.
``listed`` is the number of products whose ``listed_in`` holds the category
(those in it and below it: what its page lists without a price filter). On
SecantusDB a count decodes every product it matches (about 1.2 s for the
(docs/local-server-differences.md: local-server differences 21 and 13)
10,058 products of a top category of 100,000), so a category page reads its
count from here instead: one document.

Every write that adds, removes or relists products (``Product.save`` and
delete, ``Product.writes.sync``, ``Category.writes.move``) goes through
``changing(category_ids)`` around its write:

1. before: the categories are *marked*: ``writing`` + 1 and ``changed_at``
   = now (the document is created if missing);
2. the write;
3. after: they are *recounted* (one aggregation over the products listed in
   them), each count stored with ``counted_at`` = the moment its recount
   started, only over a count that started earlier; then ``writing`` - 1.

A count is trusted when no write is marked (``writing`` 0) and it was
counted after the last mark. When every write has finished, the count that
started last is stored, and it started after every write finished (each
writer's own recount started after its write), so it is exact. A count that
is not trusted (a write in flight, or a process that died between its mark
and its end) is never shown: the reader counts the products itself, and
when the last mark is older than ``HEAL_AFTER`` (no write runs that long)
stores that count, so the shop heals without a person.
"""

import contextlib
import datetime
import time

from django.db import models
from pymongo import UpdateOne
from pymongo.errors import BulkWriteError

from core import clock
from core.mongo import only_duplicate_keys
from core.mongo.collections import MongoCollectionMixin

from catalog.store.siblings import catalog_model

#: A mark older than this (seconds) is a write that died before its recount: a reader heals it.
HEAL_AFTER = 600
#: A recount of more categories than this reads every product once (``recount_all``): the local
#: server matches ``$in`` by comparing each product with every listed id (n * n). Marks and
#: unmarks are written one update per category, for the same reason.
MOST_IDS_PER_RECOUNT = 100


def _products():
    """``Product.objects``."""
    return catalog_model("Product").objects


class ListingCountManager(MongoCollectionMixin, models.Manager):
    """The kept counts of products per category (see the module docstring)."""

    def listed(self, category_id):
        """The number of products ``category_id`` lists (int), from its kept count when
        trusted (one read), else counted now (one more read, a ``count_documents`` over
        its products); when the last mark is older than ``HEAL_AFTER``, that count is stored
        (one more write, only if no category write was marked since)."""
        document = self.collection.find_one({"_id": category_id})
        if document is not None and _trusted(document):
            return document["listed"]
        started = clock.now()
        listed = _products().collection.count_documents({"listed_in": category_id})
        changed = clock.aware((document or {}).get("changed_at"))
        if changed is not None and changed < started - datetime.timedelta(seconds=HEAL_AFTER):
            self.collection.update_one({"_id": category_id, "changed_at": document["changed_at"]},
                                       {"$set": {"listed": listed, "counted_at": started, "writing": 0}})
        return listed

    @contextlib.contextmanager
    def changing(self, category_ids):
        """Around a write that changes which products ``category_ids`` (ObjectIds) list:
        ``mark`` them before (one write), ``settle`` them after (one aggregation, one write),
        also when the write raised."""
        moment = self.mark(category_ids)
        try:
            yield
        finally:
            self.settle(category_ids, moment)

    @contextlib.contextmanager
    def changing_in_steps(self):
        """``changing`` for a long write made of many steps (an import's batches): yields
        ``mark(category_ids)``, which marks the categories not marked yet before a step's write
        (one write, none when every one is marked already); at the end every category marked
        is recounted once (``settle``), however many steps changed it, so the recounts do
        not grow with the number of steps."""
        marked, moments = set(), []

        def mark(category_ids):
            new = set(category_ids) - marked
            if new:
                moments.append(self.mark(new))
                marked.update(new)

        try:
            yield mark
        finally:
            if marked:
                self.settle(marked, max(moments))

    def mark(self, category_ids):
        """Step 1: a write that changes which products ``category_ids`` list is about to run
        (one write, none for no ids). Returns the mark's moment, for ``settle``."""
        moment = clock.now()
        ids = sorted(set(category_ids))
        if ids:
            self.collection.bulk_write([UpdateOne({"_id": i}, {"$inc": {"writing": 1}, "$max": {"changed_at": moment}},
                                                  upsert=True) for i in ids], ordered=False)
        return moment

    def settle(self, category_ids, moment):
        """Step 3, after the write marked at ``moment``: recount ``category_ids`` and unmark
        them (one aggregation, one write; more than ``MOST_IDS_PER_RECOUNT`` categories are
        recounted with every other, ``recount_all``)."""
        ids = sorted(set(category_ids))
        if not ids:
            return
        _after(moment)
        unmark = [UpdateOne({"_id": i, "writing": {"$gt": 0}}, {"$inc": {"writing": -1}}) for i in ids]
        if len(ids) > MOST_IDS_PER_RECOUNT:
            self.recount_all()
            self.collection.bulk_write(unmark, ordered=False)
            return
        started = clock.now()  # before the count: a write it may miss settles after it
        self._store(self._count(ids), started, also=unmark)

    def _count(self, ids):
        """``{id: products listed}`` for the categories ``ids`` (one aggregation)."""
        match = {"listed_in": {"$in": ids}}
        pipeline = [{"$match": match}, {"$project": {"listed_in": 1}}, {"$unwind": "$listed_in"},
                    {"$match": match}, {"$group": {"_id": "$listed_in", "n": {"$sum": 1}}}]
        counts = dict.fromkeys(ids, 0)
        counts.update({row["_id"]: row["n"] for row in _products().collection.aggregate(pipeline)})
        return counts

    def recount_all(self):
        """Count the products listed in every category (one aggregation over every product) and
        store the counts, 0 for the categories marked that list none. Returns ``{id: n}``."""
        started = clock.now()
        pipeline = [{"$project": {"listed_in": 1}}, {"$unwind": "$listed_in"},
                    {"$group": {"_id": "$listed_in", "n": {"$sum": 1}}}]
        counts = {d["_id"]: 0 for d in self.collection.find({}, {"_id": 1})}
        counts.update({row["_id"]: row["n"] for row in _products().collection.aggregate(pipeline)})
        self._store(counts, started)
        return counts

    def forget_all(self):
        """Drop every kept count (every product was deleted); readers count until the next recount."""
        self.collection.delete_many({})

    def _store(self, counts, started, also=()):
        """Store ``counts`` (``{id: n}``) counted from ``started`` on, each only over a count that
        started earlier, with the writes ``also`` (one ``bulk_write``; a count that started later
        makes its upsert a duplicate key, left alone)."""
        # "No count, or one that started earlier" as ``$not: {$gte}`` rather than an ``$or`` of
        # ``$lt`` and ``null`` (the same documents on MongoDB): SecantusDB 0.7.0b3 leaves the
        # ``_id`` index unused beside an ``$or`` and scans the collection for each update
        # (21 ms each among 3,000 counts against 0.5; 150 s for populatedb's 5,000).
        writes = [UpdateOne({"_id": i, "counted_at": {"$not": {"$gte": started}}},
                            {"$set": {"listed": n, "counted_at": started}}, upsert=True)
                  for i, n in counts.items()]
        writes += list(also)
        if not writes:
            return
        try:
            self.collection.bulk_write(writes, ordered=False)
        except BulkWriteError as error:
            if not only_duplicate_keys(error):
                raise


def _after(moment):
    """Wait (at most about 2 ms) until ``clock.now()`` is past ``moment``: times are kept to the
    millisecond, and a recount stamped with its own mark's millisecond would not be trusted."""
    deadline = time.monotonic() + 0.002
    while clock.now() <= moment and time.monotonic() < deadline:
        time.sleep(0.0002)


def _trusted(document):
    """Whether a kept count can be shown: no write marked, counted after the last mark."""
    counted, changed = document.get("counted_at"), document.get("changed_at")
    return (counted is not None and "listed" in document and (document.get("writing") or 0) <= 0
            and (changed is None or counted > changed))
