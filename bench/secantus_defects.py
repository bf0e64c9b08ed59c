"""Measure the two SecantusDB write defects the shop works around, on any server.

Run by hand (not a test)::

    python bench/secantus_defects.py [--sizes 1,2000,10000] [--calls 50] [--retryable 11000]
    MONGODB_URI=mongodb://host:27017/ python bench/secantus_defects.py   # any MongoDB

Without ``MONGODB_URI`` it starts a throwaway local SecantusDB server (a
temporary data directory, as the shop runs it, stopped at the end). It works
in a scratch database ``secantus_defects`` (dropped at the start and the end).

1. ``findAndModify`` against the collection's size: for each size, a
   collection of that many small documents; then ``--calls`` calls of
   ``find_one_and_update({"_id": X}, {"$inc": ...})`` and as many of
   ``update_one`` with the same filter and update. SecantusDB 0.7.0b3
   re-checks the match with ``{_id, $and: [query]}``, which uses no index,
   so the first grows with the collection; on MongoDB both stay flat.
2. Retryable writes: ``insert_one`` timed with ``retryWrites=false`` and with
   retryable writes on a fresh server, then ``--retryable`` retryable writes
   are made (SecantusDB keeps a record of each for 30 minutes, up to 10,000,
   and prunes them with a scan and a sort on every write), then both timed
   again. On MongoDB nothing changes.

Prints milliseconds per call; an upgrade of SecantusDB can be checked
against docs/local-server.md with it. With a real MongoDB the throwaway
server is not started.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pymongo import MongoClient, ReturnDocument  # noqa: E402

DATABASE = "secantus_defects"


def per_call_ms(run, calls):
    start = time.perf_counter()
    for number in range(calls):
        run(number)
    return (time.perf_counter() - start) / calls * 1000


def find_and_modify(uri, sizes, calls):
    client = MongoClient(uri, retryWrites=False)
    try:
        collection = client[DATABASE].sizes
        print(f"{'documents':>10} {'find_one_and_update':>20} {'update_one':>12}   (ms a call, by _id)")
        for size in sizes:
            collection.drop()
            for start in range(0, size, 10_000):
                collection.insert_many([{"_id": f"d-{i:07d}", "n": 0, "status": "active"}
                                        for i in range(start, min(size, start + 10_000))])
            target = {"_id": f"d-{size // 2:07d}"}
            fam = per_call_ms(lambda n: collection.find_one_and_update(
                target, {"$inc": {"n": 1}}, return_document=ReturnDocument.AFTER), calls)
            one = per_call_ms(lambda n: collection.update_one(target, {"$inc": {"n": 1}}), calls)
            print(f"{size:>10,} {fam:>20.2f} {one:>12.2f}", flush=True)
    finally:
        client.close()


def retryable_writes(uri, calls, retryable):
    retrying = MongoClient(uri, retryWrites=True)
    plain = MongoClient(uri, retryWrites=False)
    try:
        def measure(label):
            on = per_call_ms(lambda n: retrying[DATABASE].writes.insert_one({"w": n}), calls)
            off = per_call_ms(lambda n: plain[DATABASE].writes.insert_one({"w": n}), calls)
            print(f"{label:42s} retryable {on:7.2f} ms   retryWrites=false {off:7.2f} ms", flush=True)

        measure("insert_one, first writes:")
        start = time.perf_counter()
        collection = retrying[DATABASE].filler
        for number in range(retryable):
            collection.insert_one({"n": number})
            if number and number % 2000 == 0:
                print(f"  {number:,} retryable writes, {time.perf_counter() - start:.0f} s", flush=True)
        print(f"  {retryable:,} retryable writes in {time.perf_counter() - start:.0f} s", flush=True)
        measure(f"insert_one, after {retryable:,} retryable writes:")
    finally:
        retrying.close()
        plain.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,2000,10000", help="collection sizes, comma-separated")
    parser.add_argument("--calls", type=int, default=50, help="timed calls of each form")
    parser.add_argument("--retryable", type=int, default=11_000, help="retryable writes made before the second timing")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    uri, process, storage = os.environ.get("MONGODB_URI", ""), None, None
    if not uri:
        from core.mongo.localserver import start_throwaway

        storage = tempfile.mkdtemp(prefix="shop-secantus-defects-")
        uri, process = start_throwaway(storage)
        print(f"Throwaway local server at {uri}")
    else:
        print("MONGODB_URI server")
    admin = MongoClient(uri)
    try:
        print(f"Server version {admin.server_info().get('version')}")
        admin.drop_database(DATABASE)
        print("\n1. findAndModify against the collection's size")
        find_and_modify(uri, sizes, options.calls)
        print("\n2. Retryable writes")
        retryable_writes(uri, options.calls * 4, options.retryable)
    finally:
        admin.drop_database(DATABASE)
        admin.close()
        if process is not None:
            process.terminate()
            process.wait(30)
            shutil.rmtree(storage, ignore_errors=True)


if __name__ == "__main__":
    main()
