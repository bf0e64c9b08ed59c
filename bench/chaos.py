"""Fault injection: checkouts from several threads while the database and a worker are killed.

    .venv/bin/python bench/chaos.py [--shoppers 4] [--seconds 90] [--db-kills 3] [--worker-kills 2]

Starts the shop as production runs it (gunicorn with 2 workers, the default
local server in a fresh data directory, the demo catalog, ``TestProvider``
keeping its charges in a file) on a free loopback port (``bench/chaos_support.LiveShop``).
Shopper threads add to a cart and pay, over and over; meanwhile the
database server is ``kill -9``ed ``--db-kills`` times and a gunicorn worker
``--worker-kills`` times, spread over ``--seconds``. Nothing is restarted by
hand: the shop brings its database back (``core.mongo.revive``) and settles
interrupted checkouts itself (``orders.reconcile``, every few seconds here).
Then the load stops, recovery is given up to ``--settle`` seconds, and the
run prints: attempts, charges, refunds, orders, charges without an order
(must be 0), carts left pending (must be 0), seconds from each database kill
to the next 200 page, and ``check_inventory``'s answer. Exits non-zero when
a must-be-0 figure is not. Bounded: it stops by itself, on loopback only.
"""

import argparse
import html
import http.cookiejar
import random
import re
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.chaos_support import LiveShop  # noqa: E402

CARD = {"name": "Chaos Monkey", "email": "chaos@example.com", "card_number": "4242 4242 4242 4242",
        "expiry": "12/39", "cvc": "123", "ship-name": "Chaos Monkey", "ship-line1": "1 Loopback Road",
        "ship-city": "London", "ship-postcode": "SW1Y 4JH", "ship-country": "GB"}
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
SKUS = [f"CHK-{number:04d}" for number in range(1, 41)]


class Shopper:
    """One browser: its own cookies; ``checkout_once`` adds a product and pays for it."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(self, path, data=None):
        """``(status, final url, body)``; status 0 when nothing answered."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(self.base + path, data=body, timeout=30) as answer:
                return answer.status, answer.geturl(), answer.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.geturl(), error.read().decode(errors="replace")
        except (OSError, ValueError) as error:
            return 0, "", str(error)

    def token(self, path):
        status, _, page = self.request(path)
        found = TOKEN.search(page) if status == 200 else None
        return html.unescape(found.group(1)) if found else None

    def checkout_once(self):
        """One shopping trip: "placed", "refused" (a page said no), or "error" (no page, or a 5xx)."""
        sku = random.choice(SKUS)
        token = self.token(f"/p/{sku}/")
        if token is None:
            return "error"
        status, _, _ = self.request("/cart/add/", {"sku": sku, "qty": 1, "csrfmiddlewaretoken": token})
        if status != 200:
            return "error"
        token = self.token("/checkout/")
        if token is None:
            return "error"
        status, url, _ = self.request("/checkout/", {**CARD, "csrfmiddlewaretoken": token})
        if status >= 500 or status == 0:
            return "error"
        return "placed" if "/order/" in url else "refused"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoppers", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=90, help="seconds of load (the kills are spread over them)")
    parser.add_argument("--db-kills", type=int, default=3)
    parser.add_argument("--worker-kills", type=int, default=2)
    parser.add_argument("--settle", type=int, default=120, help="seconds recovery may take after the load")
    options = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="shop-chaos-"))
    ledger = workdir / "charges.sqlite3"
    environ = {"PAYMENT_TEST_LEDGER": str(ledger), "PAYMENT_RECOVERY_AFTER": "10",
               "PAYMENT_RECONCILE_INTERVAL": "5", "INVENTORY_DEFAULT_STOCK": "100000"}
    print(f"Starting the shop (gunicorn, 2 workers, local server in {workdir}) ...", flush=True)
    with LiveShop(workdir, workers=2, demo=True, environ=environ) as shop:
        outcomes = {"placed": 0, "refused": 0, "error": 0}
        lock = threading.Lock()
        stop = threading.Event()

        def shop_loop():
            while not stop.is_set():
                outcome = Shopper(shop.base).checkout_once()
                with lock:
                    outcomes[outcome] += 1

        threads = [threading.Thread(target=shop_loop, daemon=True) for _ in range(options.shoppers)]
        for thread in threads:
            thread.start()
        kills = ["db"] * options.db_kills + ["worker"] * options.worker_kills
        random.shuffle(kills)
        gap = options.seconds / (len(kills) + 1)
        healed = []
        for kind in kills:
            time.sleep(gap)
            if kind == "worker":
                print(f"  kill -9 worker {shop.kill_worker()}", flush=True)
                continue
            killed = shop.kill_db()
            seconds = shop.seconds_to_200("/", killed)
            healed.append(seconds)
            print(f"  kill -9 database: next 200 after {seconds:.1f} s", flush=True)
        time.sleep(gap)
        stop.set()
        for thread in threads:
            thread.join(60)
        print("Load stopped; letting recovery run ...", flush=True)
        deadline = time.monotonic() + options.settle
        while time.monotonic() < deadline and pending_carts(shop) > 0:
            time.sleep(2)
        time.sleep(2)
        figures = tally(shop, ledger)
        checked = shop.manage("check_inventory", timeout=600)
    print()
    print(f"checkouts tried       {sum(outcomes.values())} ({outcomes['placed']} placed, "
          f"{outcomes['refused']} refused with a page, {outcomes['error']} without a page)")
    print(f"payment attempts      {figures['attempts']}")
    print(f"charges               {figures['charges']}")
    print(f"refunds               {figures['refunds']}")
    print(f"orders                {figures['orders']}")
    print(f"charges w/o an order  {figures['unmatched']}   (must be 0)")
    print(f"carts left pending    {figures['pending']}   (must be 0)")
    print("db kill -> next 200   " + ", ".join(f"{s:.1f} s" for s in healed) + "   (each < 30 s)")
    answer = (checked.stdout if checked.returncode == 0 else checked.stderr).strip().splitlines()
    print(f"check_inventory       exit {checked.returncode}: {answer[-1] if answer else ''}")
    ok = (figures["unmatched"] == 0 and figures["pending"] == 0 and all(s < 30 for s in healed)
          and checked.returncode == 0)
    sys.exit(0 if ok else 1)


def database(shop):
    """A pymongo database on the shop's local server (the benchmark reads its figures there)."""
    from pymongo import MongoClient

    from core.mongo.localserver import LocalServer

    shop.get("/healthz")  # a request brings the server back if it is down
    return MongoClient(LocalServer(shop.data_dir).status()["uri"], serverSelectionTimeoutMS=30000)["shop"]


def pending_carts(shop):
    try:
        return database(shop)["carts"].count_documents({"status": "pending"})
    except Exception:  # noqa: BLE001 - the server may be coming back
        return 1


def tally(shop, ledger):
    """The run's figures: attempts, charges, refunds, orders, unmatched charges, pending carts."""
    db = database(shop)
    connection = sqlite3.connect(ledger)
    charges = connection.execute("SELECT id, refunded FROM charges").fetchall()
    connection.close()
    paid = {document["payment"]["reference"] for document in db["orders"].find({}, {"payment.reference": 1})}
    return {
        "attempts": db["payment_attempts"].count_documents({}),
        "charges": len(charges),
        "refunds": sum(1 for _, refunded in charges if refunded),
        "orders": db["orders"].count_documents({}),
        "unmatched": sum(1 for charge_id, refunded in charges if not refunded and charge_id not in paid),
        "pending": db["carts"].count_documents({"status": "pending"}),
    }


if __name__ == "__main__":
    main()
