"""Benchmark of the cart operations: add-to-cart throughput and expire_carts over many carts.

Run by hand (not a test)::

    python bench/inventory_bench.py [--adds 3000] [--carts 100000] [--lines 2] [--undated] [--no-adds] [--phases]
    python bench/inventory_bench.py --skus 100000 [--carts 20000] [--orders 20000]

Uses the database the settings choose (the local server by default,
``MONGODB_URI`` otherwise), in a database named ``shop_bench`` that it
empties first. Prints its figures.

* add-to-cart: ``--adds`` ``Cart.objects.add_item`` calls (each a new line:
  2 writes) spread over 1, 4 and 16 threads, each thread filling its own
  carts; operations per second of wall time.
* expire_carts: ``--carts`` aged carts of 1 to 3 lines each (``--lines N``: N
  each), with their reservations, written in bulk (with ``created_at``, as
  the shop writes carts; ``--undated``: without, as carts from before it was
  kept); then the time of one ``Cart.expiry.expire()``
  that expires them all and returns their stock, and a check that every
  unit is back. ``--phases`` adds the server time of each command it sent.
* check_inventory and cleanup_inventory (``--skus N``, instead of the two
  above): N SKUs in stock, ``--carts`` carts of 1 to 3 lines holding
  reservations made 2 hours ago (60 % active, 25 % expired: stranded
  reservations, 15 % complete, each with its order) and ``--orders`` more
  orders of 1 to 3 lines, written in bulk; then the time of
  ``check_invariant`` (the check ``check_inventory`` runs), of the orders'
  charge references (the audit's read of every order), of one
  ``Inventory.cleanup.cleanup(3600)`` (refresh, return, drop), and of the
  check again afterwards.
"""

import argparse
import datetime
import os
import random
import threading
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)
from pymongo import monitoring  # noqa: E402


class CommandTimes(monitoring.CommandListener):
    """``--phases``: the server time of each (collection, command) while ``on``, from pymongo's
    command monitoring (a getMore is counted under its collection)."""

    def __init__(self):
        self.on, self.pending, self.times = False, {}, {}

    def started(self, event):
        if self.on:
            target = event.command.get(event.command_name)
            name = target if isinstance(target, str) else event.command.get("collection", "$cmd")
            self.pending[event.request_id] = (name, event.command_name)

    def succeeded(self, event):
        key = self.pending.pop(event.request_id, None) if self.on else None
        if key:
            seconds, count = self.times.get(key, (0.0, 0))
            self.times[key] = (seconds + event.duration_micros / 1e6, count + 1)

    def failed(self, event):
        self.pending.pop(event.request_id, None)


TIMES = CommandTimes()
monitoring.register(TIMES)  # before the backend makes its client

benchsetup.development()

from django.core.management import call_command  # noqa: E402

from inventory.invariant import check_invariant  # noqa: E402
from inventory.models import Cart, ExpiryRun, Inventory  # noqa: E402
from orders.models import Order  # noqa: E402
from core.mongo import engine  # noqa: E402

SKUS = [f"BENCH-{n:04d}" for n in range(300)]
DETAILS = {"title": "Bench album", "price": 999}


def reset():
    Cart.objects.collection.delete_many({})
    Inventory.objects.collection.delete_many({})
    ExpiryRun.objects.collection.delete_many({})
    Order.objects.collection.delete_many({})


def bench_adds(threads, adds):
    reset()
    Inventory.objects.ensure_stock(SKUS, 10**9)
    per_thread = adds // threads
    barrier = threading.Barrier(threads + 1)

    def shopper(index):
        generator = random.Random(index)
        barrier.wait()
        done = 0
        while done < per_thread:
            cart_id = Cart.objects.create_cart().id
            for sku in generator.sample(SKUS, min(50, per_thread - done)):
                Cart.objects.add_item(cart_id, sku, 1, DETAILS, 10)
                done += 1

    workers = [threading.Thread(target=shopper, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    return per_thread * threads / elapsed


def bench_expire(carts, lines=None, undated=False):
    """Expire ``carts`` aged carts (``lines`` lines each, or 1 to 3 when None) over the 300 SKUs;
    ``undated``: carts without ``created_at``, as from before it was kept. Returns ``(report,
    seconds, setup seconds, every unit back)``."""
    reset()
    generator = random.Random(0)
    old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
    reserved = {sku: [] for sku in SKUS}
    documents = []
    for number in range(carts):
        cart_id = f"bench-{number:07d}"
        items = []
        for sku in generator.sample(SKUS, lines or generator.randint(1, 3)):
            qty = generator.randint(1, 3)
            items.append({"sku": sku, "qty": qty, "details": DETAILS})
            reserved[sku].append({"qty": qty, "cart_id": cart_id, "timestamp": old})
        document = {"_id": cart_id, "status": "active", "last_modified": old, "items": items}
        if not undated:
            document["created_at"] = old  # as Cart.objects.create_cart records it
        documents.append(document)
    setup = time.perf_counter()
    for start in range(0, len(documents), 10_000):
        Cart.objects.collection.insert_many(documents[start:start + 10_000])
    Inventory.objects.collection.insert_many([
        {"_id": sku, "qty": 0, "stocked": sum(e["qty"] for e in entries), "carted": entries}
        for sku, entries in reserved.items()
    ])
    setup = time.perf_counter() - setup
    TIMES.on = True
    start = time.perf_counter()
    report = Cart.expiry.expire(3600)
    elapsed = time.perf_counter() - start
    TIMES.on = False
    back = all(d["qty"] == d["stocked"] and not d["carted"]
               for d in Inventory.objects.collection.find())
    return report, elapsed, setup, back


def _order(number, cart_id, lines, moment):
    """A raw order document of ``lines`` (``[(sku, qty)]``), as checkout writes one (the fields read here)."""
    return {"number": number, "status": "paid", "placed_at": moment, "cart_id": cart_id, "user_id": "",
            "name": "Bench", "email": "bench@example.com",
            "lines": [{"sku": sku, "title": "Bench album", "qty": qty, "price": 999, "weight": 0}
                      for sku, qty in lines],
            "subtotal": 0, "shipping": 0, "tax": 0, "total": 0,
            "payment": {"reference": f"ch_bench_{number}", "brand": "visa", "last4": "4242"},
            "history": [], "restocked": False}


def bench_check(skus, carts, orders):
    """check_inventory and cleanup_inventory over ``skus`` SKUs (see the module docstring)."""
    reset()
    generator = random.Random(0)
    names = [f"BENCH-{n:06d}" for n in range(skus)]
    old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
    carted = {}
    sold = {}
    cart_documents, order_documents = [], []
    statuses = {"active": 0, "expired": 0, "complete": 0}
    for number in range(carts):
        cart_id = f"bench-{number:07d}"
        status = generator.choices(["active", "expired", "complete"], [60, 25, 15])[0]
        statuses[status] += 1
        lines = [(sku, generator.randint(1, 3)) for sku in generator.sample(names, generator.randint(1, 3))]
        for sku, qty in lines:
            carted.setdefault(sku, []).append({"qty": qty, "cart_id": cart_id, "timestamp": old})
            if status == "complete":
                sold[sku] = sold.get(sku, 0) + qty
        cart_documents.append({"_id": cart_id, "status": status, "last_modified": old, "user_id": "",
                               "items": [{"sku": sku, "qty": qty, "details": DETAILS} for sku, qty in lines]})
        if status == "complete":
            order_documents.append(_order(len(order_documents) + 1, cart_id, lines, old))
    for _ in range(orders):
        lines = [(sku, generator.randint(1, 3)) for sku in generator.sample(names, generator.randint(1, 3))]
        for sku, qty in lines:
            sold[sku] = sold.get(sku, 0) + qty
        order_documents.append(_order(len(order_documents) + 1, f"gone-{len(order_documents)}", lines, old))
    setup = time.perf_counter()
    for start in range(0, len(cart_documents), 10_000):
        Cart.objects.collection.insert_many(cart_documents[start:start + 10_000])
    for start in range(0, len(order_documents), 10_000):
        Order.objects.collection.insert_many(order_documents[start:start + 10_000])
    # stocked = available + reserved + sold; a complete cart's reservation is not reserved (its
    # units are sold: its order counts them).
    complete = {d["_id"] for d in cart_documents if d["status"] == "complete"}
    stock_documents = [
        {"_id": sku, "qty": 100, "carted": carted.get(sku, []),
         "stocked": 100 + sold.get(sku, 0) + sum(e["qty"] for e in carted.get(sku, []) if e["cart_id"] not in complete)}
        for sku in names
    ]
    for start in range(0, len(stock_documents), 10_000):
        Inventory.objects.collection.insert_many(stock_documents[start:start + 10_000])
    setup = time.perf_counter() - setup
    figures = {"setup": setup, "statuses": statuses, "orders": len(order_documents),
               "reservations": sum(len(entries) for entries in carted.values())}
    phases = [("check", "problems", lambda: check_invariant(Order.objects.sold_by_sku)),
              ("audit", "references", lambda: len(Order.objects.charge_references())),
              ("cleanup", "cleanup_report", lambda: Inventory.cleanup.cleanup(3600)),
              ("check_after", "problems_after", lambda: check_invariant(Order.objects.sold_by_sku))]
    figures["phases"] = {}
    for name, result, run in phases:
        TIMES.times, TIMES.on = {}, True
        start = time.perf_counter()
        figures[result] = run()
        figures[name] = time.perf_counter() - start
        TIMES.on = False
        figures["phases"][name] = TIMES.times
    return figures


def print_times(times):
    """Print ``CommandTimes.times``, the slowest first."""
    for (collection, command), (seconds, count) in sorted(times.items(), key=lambda i: -i[1][0]):
        print(f"  {collection:12s} {command:10s} x{count:<5d} {seconds:8.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--adds", type=int, default=3000)
    parser.add_argument("--carts", type=int, default=100_000)
    parser.add_argument("--no-adds", action="store_true", help="only the expire_carts benchmark")
    parser.add_argument("--lines", type=int, help="lines per expired cart (default 1 to 3 at random)")
    parser.add_argument("--undated", action="store_true",
                        help="expired carts without created_at (carts from before it was kept)")
    parser.add_argument("--phases", action="store_true",
                        help="print the server time of each command each job sent")
    parser.add_argument("--skus", type=int, help="benchmark check_inventory and cleanup_inventory over this many SKUs")
    parser.add_argument("--orders", type=int, default=20_000, help="with --skus: orders besides the carts'")
    options = parser.parse_args()
    call_command("migrate", verbosity=0, interactive=False)
    print(f"engine: {engine()}, {os.cpu_count()} CPU(s)")
    if options.skus:
        carts = 20_000 if options.carts == parser.get_default("carts") else options.carts
        figures = bench_check(options.skus, carts, options.orders)
        print(f"setup: {options.skus} SKUs, {carts} carts {figures['statuses']}, {figures['reservations']} "
              f"reservations, {figures['orders']} orders in {figures['setup']:.1f} s")
        print(f"check_inventory (check_invariant): {figures['check']:.1f} s, "
              f"{len(figures['problems'])} SKU(s) failing")
        print(f"audit's charge references of every order: {figures['audit']:.1f} s ({figures['references']})")
        print(f"cleanup_inventory: {figures['cleanup']:.1f} s, {figures['cleanup_report']}")
        print(f"check_inventory again: {figures['check_after']:.1f} s, "
              f"{len(figures['problems_after'])} SKU(s) failing")
        if options.phases:
            for name, times in figures["phases"].items():
                print(f"{name}:")
                print_times(times)
        reset()
        return
    for threads in () if options.no_adds else (1, 4, 16):
        rate = bench_adds(threads, options.adds)
        print(f"add-to-cart, {threads:2d} thread(s): {rate:8.0f} adds/s ({options.adds} adds, 2 writes each)")
    report, elapsed, setup, back = bench_expire(options.carts, options.lines, options.undated)
    print(f"expire_carts: {report['expired']} carts expired, {report['returned']} reservations "
          f"returned in {elapsed:.1f} s ({report['expired'] / elapsed:.0f} carts/s; "
          f"setup {setup:.1f} s); all stock back: {back}")
    if options.phases:
        print_times(TIMES.times)
    reset()


if __name__ == "__main__":
    main()
