"""Soak benchmark: do the shop's writes cost the same on a database aged by a year of trade?

Run by hand (not a test), from the project directory::

    python bench/soak.py populate [--carts 300000] [--orders 100000] [--skus 100000]
    python bench/soak.py writes [--rounds 200] [--chunks 4]
    python bench/soak.py load [--minutes 10] [--users 20] [--spawn-rate 2] [--locust PATH]

``populate`` empties the two benchmark databases on the server (the local
one unless ``MONGODB_URI`` is set), ``shop_soak_aged`` and
``shop_soak_empty``, migrates both, and ages the first with ``manage.py
populatedb --age`` (carts, orders with their payment attempts and SKUs,
bulk inserts in the shop's own schema: ``orders/aging.py``).

``writes`` (a) times the shop's write calls through its managers, as the
views and the admin call them, on both databases: cart add (a new line),
change (a quantity), remove (a line), checkout (``place_order`` with the
test provider), order status change (paid -> shipped), refund (``cancel``:
cancelled, units back, refunded) and restock. Both work on the same 100
SKUs (``SOAK-000`` ..., created in each), so the only difference is what
else the collections hold. The rounds alternate between the databases in
``--chunks`` runs of each (one process per run), so a change in the
machine's load hits both alike. Prints per call the median and p95 in ms
on each and the ratio of the medians (aged / empty).

``load`` (b) runs Locust headless against gunicorn (the shop's
``gunicorn.conf.py``, production settings) serving ``shop_soak_aged``:
shoppers browse the home page and product pages, search, add to carts and
check out, at ``--users`` users started ``--spawn-rate`` a second. It
prints, minute by minute, the shop's requests a second, their p95 as the
shoppers saw it, their p95 of the shop's own time (each response time less
the time it waited on Stripe, which gunicorn tells in ``Server-Timing`` with
``SHOP_SERVER_TIMING`` on) and errors, then the first and last minute
against each other. The Stripe.js token requests go to the local Stripe,
not to the shop, and are counted apart. Why the shop's own time: the local
Stripe (localstripe) rewrites its whole state file at every change, so it
slows as the run's payments pile up, which Stripe does not.
Locust is not a dependency of the shop: install it in a virtualenv of its
own (``python -m venv /tmp/locust && /tmp/locust/bin/pip install locust``)
and pass ``--locust /tmp/locust/bin/locust`` (default: ``locust`` on PATH).
The Locust file is ``bench/soak_locust.py``.
"""

import argparse
import csv
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.benchsetup import LOAD_FROM_ONE_ADDRESS, wait_healthy  # noqa: E402
AGED, EMPTY = "shop_soak_aged", "shop_soak_empty"
SOAK_SKUS = [f"SOAK-{number:03d}" for number in range(100)]
CALLS = ["cart add", "change", "remove", "checkout", "status change", "refund", "restock"]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def environ(database, **more):
    """The environment of a benchmark process on ``database``: production settings, loopback http,
    Stripe's provider on the machine's local Stripe, the per-client limits out of the way (every
    simulated shopper is 127.0.0.1), e-mail kept in memory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GUNICORN_"))}
    env.update(DJANGO_SETTINGS_MODULE="shop.settings", MONGODB_NAME=database,
               DJANGO_SECRET_KEY=os.environ.get("SOAK_SECRET_KEY") or secrets.token_urlsafe(50),
               DJANGO_ALLOWED_HOSTS="127.0.0.1,testserver", DJANGO_SECURE_SSL_REDIRECT="0",
               DJANGO_SECURE_COOKIES="0", DJANGO_LOG_LEVEL="WARNING", SHOP_LOAD_DEMO_CATALOG="0",
               EMAIL_URL="memorymail://", PYTHONPATH=str(BASE_DIR),
               PAYMENT_RECONCILE_INTERVAL="0", **LOAD_FROM_ONE_ADDRESS)
    env.update(more)
    return env


def manage(database, *args):
    subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=environ(database), check=True)


# -- populate --------------------------------------------------------------------------------


def populate(options):
    for database in (AGED, EMPTY):
        subprocess.run([sys.executable, __file__, "_drop", database], env=environ(database), check=True)
        manage(database, "migrate", "--verbosity", "0")
    started = time.perf_counter()
    manage(AGED, "populatedb", "--age", "--aged-carts", str(options.carts), "--aged-orders",
           str(options.orders), "--aged-skus", str(options.skus))
    print(f"Aged {AGED} in {time.perf_counter() - started:.0f} s: {options.carts:,} carts, "
          f"{options.orders:,} orders with their payments, {options.skus:,} SKUs.")


def _drop(database):
    import django

    django.setup()
    from django.db import connection

    connection.ensure_connection()
    connection.connection.drop_database(database)  # a benchmark's own database


# -- writes (a) ------------------------------------------------------------------------------


def _time_writes(rounds):
    """In a process set up on one database: time ``rounds`` of each write call; prints JSON."""
    import django

    django.setup()
    from inventory.models import Cart, Inventory
    from orders import fulfilment
    from orders.checkout import place_order
    from orders.models import Order
    from bench.chaos import stripe_token
    from orders.payments import StripeProvider

    Inventory.objects.ensure_stock(SOAK_SKUS, 1_000_000)
    provider = StripeProvider()
    details = {"title": "Soak album", "price": 999}
    times = {call: [] for call in CALLS}

    def timed(call, run, *args):
        start = time.perf_counter()
        result = run(*args)
        if number:  # round 0 warms the process up (connections, first imports): not counted
            times[call].append((time.perf_counter() - start) * 1000)
        return result

    for number in range(rounds + 1):
        a, b, c = (SOAK_SKUS[(3 * number + k) % len(SOAK_SKUS)] for k in range(3))
        orders = []
        for _ in range(2):
            cart = Cart.objects.create_cart()
            timed("cart add", Cart.objects.add_item, cart.id, a, 1, details, 10)
            timed("change", Cart.objects.update_quantity, cart.id, a, 2)
            Cart.objects.add_item(cart.id, b, 1, details, 10)
            timed("remove", Cart.objects.remove_item, cart.id, b)
            Cart.objects.add_item(cart.id, c, 1, details, 10)
            orders.append(timed("checkout", place_order, cart.id, provider, stripe_token(), "Soak", "soak@example.com"))
        timed("status change", Order.objects.transition, orders[0].number, Order.SHIPPED, "soak")
        timed("refund", fulfilment.cancel, orders[1].number, "soak", provider)
        timed("restock", Inventory.objects.restock, a, 1)
    print("SOAK-JSON " + json.dumps(times))


def writes(options):
    results = {AGED: {call: [] for call in CALLS}, EMPTY: {call: [] for call in CALLS}}
    per_chunk = max(1, options.rounds // options.chunks)
    for chunk in range(options.chunks):
        for database in (EMPTY, AGED):
            done = subprocess.run([sys.executable, __file__, "_time", str(per_chunk)], env=environ(database),
                                  cwd=BASE_DIR, check=True, capture_output=True, text=True)
            line = next(line for line in done.stdout.splitlines() if line.startswith("SOAK-JSON "))
            for call, values in json.loads(line[len("SOAK-JSON "):]).items():
                results[database][call].extend(values)
            print(f"  chunk {chunk + 1}/{options.chunks} on {database}: {per_chunk} rounds", flush=True)
    sizes = subprocess.run([sys.executable, __file__, "_sizes"], env=environ(AGED), cwd=BASE_DIR,
                           check=True, capture_output=True, text=True).stdout.strip()
    print(f"\nAged database: {sizes}")
    print(f"{'call':15s} {'empty p50':>10s} {'empty p95':>10s} {'aged p50':>10s} {'aged p95':>10s} {'aged/empty':>10s}")
    for call in CALLS:
        empty, aged = results[EMPTY][call], results[AGED][call]
        e50, a50 = statistics.median(empty), statistics.median(aged)
        print(f"{call:15s} {e50:10.1f} {p95(empty):10.1f} {a50:10.1f} {p95(aged):10.1f} {a50 / e50:10.2f}")
    print(f"({len(results[AGED]['restock'])} rounds on each; ms per call)")


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def _sizes():
    import django

    django.setup()
    from django.db import connection

    connection.ensure_connection()
    database = connection.connection[os.environ["MONGODB_NAME"]]
    print(", ".join(f"{name} {database[name].estimated_document_count():,}"
                    for name in ("carts", "orders", "payment_attempts", "inventory")))


# -- load (b) --------------------------------------------------------------------------------


def load(options):
    port = options.port
    static_root = tempfile.mkdtemp(prefix="shop-soak-static-")
    results = Path(tempfile.mkdtemp(prefix="shop-soak-locust-"))
    env = environ(AGED, DJANGO_STATIC_ROOT=static_root, GUNICORN_BIND=f"127.0.0.1:{port}", SHOP_SERVER_TIMING="1")
    request_log = results / "requests.csv"
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=BASE_DIR, env=env, check=True)
    subprocess.run([sys.executable, __file__, "_catalog"], cwd=BASE_DIR, env=env, check=True)
    server = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py"], cwd=BASE_DIR, env=env,
                              stdout=subprocess.DEVNULL, stderr=open(results / "gunicorn.log", "w"))
    try:
        wait_healthy(f"http://127.0.0.1:{port}/healthz", server, timeout=600)
        command = [options.locust, "-f", str(BASE_DIR / "bench" / "soak_locust.py"), "--headless",
                   "--host", f"http://127.0.0.1:{port}", "-u", str(options.users), "-r", str(options.spawn_rate),
                   "-t", f"{int(options.minutes * 60)}s", "--csv", str(results / "soak"), "--csv-full-history",
                   "--only-summary"]
        print("Running", " ".join(command), flush=True)
        subprocess.run(command, cwd=BASE_DIR, check=False,
                       env={**os.environ, "SOAK_SKUS": ",".join(SOAK_SKUS), "SOAK_REQUEST_LOG": str(request_log)})
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(static_root, ignore_errors=True)
    report_minutes(request_log, options.minutes)
    print(f"Locust's CSV files, every request and gunicorn's log: {results}")


def _catalog():
    """Give the load run products to show and buy: a small generated catalog on the SOAK SKUs' side."""
    import django

    django.setup()
    from django.core.management import call_command

    from catalog.models import Product
    from inventory.models import Inventory

    if not Product.objects.exists():
        call_command("populatedb", "--products", "300", "--categories", "101", "--stock", "100000", verbosity=0)
    Inventory.objects.ensure_stock(SOAK_SKUS, 1_000_000)


def report_minutes(request_log, run_minutes):
    """The shop's requests a second, p95 (as seen, and of its own time) and errors, minute by
    minute, from the Locust file's log of every request; the Stripe.js requests apart."""
    rows = list(csv.DictReader(open(request_log)))
    if not rows:
        print("No requests logged.")
        return
    start = min(float(row["start"]) for row in rows)
    minutes = {}
    for row in rows:
        minute = int((float(row["start"]) - start) // 60)
        if minute < int(run_minutes):  # the run's last seconds are not a minute to compare
            minutes.setdefault(minute, []).append(row)
    print(f"\n{'minute':>6s} {'req/s':>7s} {'p95 ms':>7s} {'own p95':>8s} {'errors':>7s} {'Stripe.js':>10s} {'its p95':>8s}")
    figures = []
    for minute, group in sorted(minutes.items()):
        shop = [row for row in group if row["name"] != "stripe token (Stripe.js)"]
        stripe_js = [float(row["ms"]) for row in group if row["name"] == "stripe token (Stripe.js)"]
        seen = [float(row["ms"]) for row in shop]
        own = [float(row["ms"]) - float(row["stripe_ms"]) for row in shop]
        errors = sum(int(row["failed"]) for row in group)
        figures.append((len(shop) / 60, p95(own)))
        print(f"{minute + 1:6d} {len(shop) / 60:7.1f} {p95(seen):7.0f} {p95(own):8.0f} {errors:7d} "
              f"{len(stripe_js) / 60:10.2f} {p95(stripe_js) if stripe_js else 0:8.0f}")
    if len(figures) > 1:
        (r1, p1), (rn, pn) = figures[0], figures[-1]
        print(f"last minute against the first: throughput {rn / r1:.2f}x, own p95 {pn / p1:.2f}x")


def main():
    if len(sys.argv) > 1 and sys.argv[1].startswith("_"):
        {"_drop": lambda: _drop(sys.argv[2]), "_time": lambda: _time_writes(int(sys.argv[2])),
         "_sizes": _sizes, "_catalog": _catalog}[sys.argv[1]]()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    step = commands.add_parser("populate", help="age shop_soak_aged, empty shop_soak_empty")
    step.add_argument("--carts", type=int, default=300_000)
    step.add_argument("--orders", type=int, default=100_000)
    step.add_argument("--skus", type=int, default=100_000)
    step = commands.add_parser("writes", help="(a) time the write calls on both databases")
    step.add_argument("--rounds", type=int, default=200)
    step.add_argument("--chunks", type=int, default=4)
    step = commands.add_parser("load", help="(b) Locust against gunicorn on the aged database")
    step.add_argument("--minutes", type=float, default=10)
    step.add_argument("--users", type=int, default=20)
    step.add_argument("--spawn-rate", type=float, default=2)
    step.add_argument("--port", type=int, default=8765)
    step.add_argument("--locust", default="locust")
    options = parser.parse_args()
    {"populate": populate, "writes": writes, "load": load}[options.command](options)


if __name__ == "__main__":
    main()
