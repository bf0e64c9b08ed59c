"""What a write form costs per document on the local server: the measurements behind expiry's design.

Run by hand (not a test)::

    python bench/update_forms.py [--docs 10000] [--indexes [--repeat 2]]

Starts a throwaway SecantusDB server (``--sync-on-commit``, a temporary data
directory, stopped at the end), fills a ``carts``-like collection with
``--docs`` small documents and the carts' three indexes (``Cart.Meta.indexes``), and times, each on a
fresh fill: one ``update_many`` of every document (moving the indexed status,
and setting one unindexed field only), ``update_many``s of 1,000 by ``_id``
range plain and each in a multi-document transaction, ``bulk_write``s of
1,000 ``UpdateOne`` plain and in a transaction, and reads of 1,000 by
``{_id: {$in: ids}}`` against 10 reads of 100. Prints milliseconds per document.

``--indexes``: only the expiry's ``update_many`` (``Cart.expiry``'s filter, ``status: {$in}``
and ``last_modified``), on the carts' three indexes and with each one left out, and on
none, ``--repeat`` times in turn (the machine's load moves between runs): what each
secondary index adds to a cart expired.
"""

import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pymongo import ASCENDING, MongoClient, UpdateOne  # noqa: E402

from core.mongo.localserver import start_throwaway  # noqa: E402

OLD = datetime.datetime(2026, 1, 1)
SET = {"$set": {"status": "expired", "expiry_run": "r", "last_modified": datetime.datetime(2026, 6, 2)}}


#: The carts' indexes (``inventory.models.Cart.Meta.indexes``), by name.
CART_INDEXES = {"status_last_modified": [("status", ASCENDING), ("last_modified", ASCENDING)],
                "status_created_at": [("status", ASCENDING), ("created_at", ASCENDING)],
                "user_status": [("user_id", ASCENDING), ("status", ASCENDING)]}


def expiry_by_indexes(carts, count, repeat):
    """``--indexes``: the expiry's ``update_many`` of ``count`` carts of 2 lines on each set of the
    carts' indexes (all, each one left out, none), ``repeat`` rounds in turn."""
    sets = [("all three", list(CART_INDEXES))]
    sets += [(f"without {name}", [n for n in CART_INDEXES if n != name]) for name in CART_INDEXES]
    sets += [("none (only _id)", [])]
    moved = {"status": {"$in": ["active", "expiring"]}, "last_modified": {"$lt": datetime.datetime(2026, 6, 1)}}
    for round_ in range(repeat):
        for label, names in sets:
            carts.drop()
            for name in names:
                carts.create_index(CART_INDEXES[name], name=name)
            documents = [{"_id": f"c-{i:07d}", "status": "active", "last_modified": OLD, "created_at": OLD,
                          "user_id": "", "items": [{"sku": f"S{(i * 7 + j) % 300}", "qty": 1,
                                                    "details": {"title": "x", "price": 1}} for j in range(2)]}
                         for i in range(count)]
            for start in range(0, count, 10_000):
                carts.insert_many(documents[start:start + 10_000])
            start = time.perf_counter()
            done = carts.update_many(moved, SET).modified_count
            elapsed = time.perf_counter() - start
            print(f"round {round_ + 1}, {label:32s} {elapsed:7.2f} s {elapsed / count * 1000:6.3f} ms/cart "
                  f"({done}; load {os.getloadavg()[0]:.1f})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--indexes", action="store_true", help="the expiry's update_many by the carts' indexes")
    parser.add_argument("--repeat", type=int, default=2, help="with --indexes: rounds of every set")
    options = parser.parse_args()
    count = options.docs
    storage = tempfile.mkdtemp(prefix="shop-update-forms-")
    uri, process = start_throwaway(storage)
    try:
        client = MongoClient(uri)
        carts = client.update_forms.carts
        if options.indexes:
            expiry_by_indexes(carts, count, options.repeat)
            return
        for spec in CART_INDEXES.values():
            carts.create_index(spec)

        def fill():
            carts.delete_many({})
            documents = [{"_id": f"c-{i:07d}", "status": "active", "last_modified": OLD, "user_id": "",
                          "items": [{"sku": f"S{i % 300}", "qty": 1, "details": {"title": "x", "price": 1}}]}
                         for i in range(count)]
            for start in range(0, count, 10_000):
                carts.insert_many(documents[start:start + 10_000])

        def timed(label, run, fresh=True):
            if fresh:
                fill()
            start = time.perf_counter()
            done = run()
            elapsed = time.perf_counter() - start
            print(f"{label:55s} {elapsed:7.2f} s {elapsed / count * 1000:6.3f} ms/doc ({done})", flush=True)

        def ranges(size=1000):
            for start in range(0, count, size):
                yield {"_id": {"$gte": f"c-{start:07d}", "$lt": f"c-{start + size:07d}"}, "status": "active"}

        def in_transaction(write):
            with client.start_session() as session:
                return session.with_transaction(lambda s: write(s))

        def batches():
            return [[f"c-{i:07d}" for i in range(start, min(count, start + 1000))] for start in range(0, count, 1000)]

        def bulk(ids, session=None):
            requests = [UpdateOne({"_id": d}, SET) for d in ids]
            return carts.bulk_write(requests, ordered=False, session=session).modified_count

        def reads(size):
            ids = [f"c-{i:07d}" for i in range(count)]
            return sum(len(list(carts.find({"_id": {"$in": ids[s:s + size]}}, {"status": 1})))
                       for s in range(0, count, size))

        timed("update_many of every document (status moves)",
              lambda: carts.update_many({"status": "active"}, SET).modified_count)
        timed("update_many of every document, one unindexed field", lambda: carts.update_many(
            {"status": "active"}, {"$set": {"expiry_run": "r"}}).modified_count)
        timed("update_many per 1,000 (_id range)",
              lambda: sum(carts.update_many(q, SET).modified_count for q in ranges()))
        timed("update_many per 1,000, each in a transaction", lambda: sum(
            in_transaction(lambda s, q=q: carts.update_many(q, SET, session=s).modified_count) for q in ranges()))
        timed("bulk_write of UpdateOne per 1,000", lambda: sum(bulk(ids) for ids in batches()))
        timed("bulk_write of UpdateOne per 1,000, in transactions", lambda: sum(
            in_transaction(lambda s, ids=ids: bulk(ids, s)) for ids in batches()))
        timed("find by _id $in, 1,000 ids a read", lambda: reads(1000), fresh=False)
        timed("find by _id $in, 100 ids a read", lambda: reads(100), fresh=False)
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(storage, ignore_errors=True)


if __name__ == "__main__":
    main()
