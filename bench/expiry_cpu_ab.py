"""The expiry's CPU seconds, the local server's and this process's: an A/B measure robust to load.

Run by hand (not a test) from a worktree, any commit since 2026-11-24::

    cd <worktree> && MONGODB_NAME=<db> python <path>/bench/expiry_cpu_ab.py [--carts 10000] [--lines 2]

Writes ``--carts`` idle carts of ``--lines`` lines over 300 SKUs with their
reservations (as ``bench/inventory_bench.py``), then times one expiry
(``Cart.expiry.expire(3600)``, or ``Cart.objects.expire`` on older commits):
wall seconds, and the CPU seconds of the server process (``/proc/<pid>/stat``) and
of this one. On a shared machine the wall time follows the load; the server's CPU
seconds a cart do not (much): they compare commits, index sets and machines.
It prints the carts' and the inventory's indexes (a fresh ``MONGODB_NAME`` that
``migrate`` has not prepared has only ``_id``). ``--rounds N`` expires N fills in
turn: from the second on, a server that keeps an oplog (a replica set's persona, as the
shop's server did before it ran ``--standalone``) is past its entry cap (100,000 by
default) and every write also prunes an old entry, as in a 100,000-cart run. To compare
servers, start them by hand and point ``MONGODB_URI`` at each (``migrate`` first).

The A/B runs of 2026-11-29 (``docs/performance-operations.md``) used it with
``SHOP_LOCAL_DB_DIR`` and ``SHOP_LOCAL_DB_CACHE_SIZE`` set per run.

CPU seconds are not work: on this virtual machine the same work costs more CPU seconds
when the host is busier (the server's CPU a cart went from 0.6 to 0.9 ms with the load
average from 7 to 16 in one A/B). So each run also times a fixed reference loop in this
process (``reference_seconds``: BSON encoding and decoding of a cart and dict work, as the
server does per cart) before and after the expiry, and prints the server's CPU a cart in
those units: compare runs, machines and days by that ratio, not by the seconds alone.
"""

import argparse
import datetime
import os
import random
import sys
import time

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import benchsetup  # noqa: E402

benchsetup.development()

from inventory.models import Cart, ExpiryRun, Inventory  # noqa: E402

SKUS = [f"BENCH-{n:04d}" for n in range(300)]
DETAILS = {"title": "Bench album", "price": 999}


def cpu_of(pid):
    """User + system CPU seconds of process ``pid``."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reference_seconds(rounds=20_000):
    """CPU seconds of this process for a fixed loop: ``rounds`` times BSON-encode a two-line
    cart, decode it and copy it (the kind of work the server does per cart it updates)."""
    import copy

    import bson
    old = datetime.datetime(2026, 11, 29, tzinfo=datetime.timezone.utc)
    cart = {"_id": "bench-0000001", "status": "active", "last_modified": old, "created_at": old,
            "items": [{"sku": sku, "qty": 2, "details": DETAILS} for sku in SKUS[:2]]}
    start = time.process_time()
    for _ in range(rounds):
        copy.deepcopy(bson.decode(bson.encode(cart)))
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--carts", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    carts, stock = Cart.objects.collection, Inventory.objects.collection
    pid = int(carts.database.client.admin.command("serverStatus")["pid"])
    expire = Cart.expiry.expire if hasattr(Cart, "expiry") else Cart.objects.expire
    for _ in range(options.rounds):
        for c in (carts, stock, ExpiryRun.objects.collection):
            c.delete_many({})
        generator = random.Random(0)
        old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
        reserved = {sku: [] for sku in SKUS}
        documents = []
        for number in range(options.carts):
            cart_id = f"bench-{number:07d}"
            items = []
            for sku in generator.sample(SKUS, options.lines):
                qty = generator.randint(1, 3)
                items.append({"sku": sku, "qty": qty, "details": DETAILS})
                reserved[sku].append({"qty": qty, "cart_id": cart_id, "timestamp": old})
            documents.append({"_id": cart_id, "status": "active", "last_modified": old, "created_at": old,
                              "items": items})
        for start in range(0, len(documents), 10_000):
            carts.insert_many(documents[start:start + 10_000])
        stock.insert_many([{"_id": sku, "qty": 0, "stocked": sum(e["qty"] for e in entries), "carted": entries}
                           for sku, entries in reserved.items()])
        print("carts indexes:", sorted(carts.index_information()), "inventory:",
              sorted(stock.index_information()), flush=True)
        reference = reference_seconds()
        server, client, wall = cpu_of(pid), time.process_time(), time.perf_counter()
        report = expire(3600)
        wall, client, server = time.perf_counter() - wall, time.process_time() - client, cpu_of(pid) - server
        reference = (reference + reference_seconds()) / 2
        back = all(d["qty"] == d["stocked"] and not d["carted"] for d in stock.find())
        n = options.carts
        print(f"{os.path.basename(os.getcwd())}: {report} back={back} wall {wall:.2f} s, server CPU {server:.2f} s "
              f"({server / n * 1000:.3f} ms a cart), client CPU {client:.2f} s, load {os.getloadavg()[0]:.1f}; "
              f"reference loop {reference:.2f} s, server CPU a cart / reference {server / n / reference * 1000:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
