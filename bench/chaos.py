"""Fault injection: checkouts from several threads while the database and a worker are killed.

    .venv/bin/python bench/chaos.py [--shoppers 4] [--seconds 90] [--db-kills 3] [--worker-kills 2]
                                    [--stripe-pauses 1]

Starts the shop as production runs it (gunicorn with 2 workers, the default
local server in a fresh data directory, the demo catalog) with its real
payment provider, Stripe's, on the machine's local Stripe (localstripe), on a
free loopback port (``bench/chaos_support.LiveShop``). Shopper threads add to
a cart and pay with a Stripe token (made as Stripe.js makes it), over and
over; meanwhile the database server is ``kill -9``ed ``--db-kills`` times, a
gunicorn worker ``--worker-kills`` times, and the payment server is paused
``--stripe-pauses`` times (``SIGSTOP`` for 20 s, then ``SIGCONT``: an outage,
not data loss), spread over ``--seconds``. No webhook reaches this shop (its
endpoint is not registered): every webhook is lost, so recovery alone must
settle what the crashes interrupted. Nothing is restarted by hand: the shop
brings its database back (``core.mongo.revive``) and settles interrupted
checkouts itself (``orders.reconcile``, every few seconds here), asking Stripe.
Then the load stops, recovery is given up to ``--settle`` seconds, and the
run prints: attempts, charges, refunds, orders, charges without an order
(must be 0), carts left pending (must be 0), seconds from each database kill
to the next 200 page, and ``check_inventory``'s answer. Exits non-zero when
a must-be-0 figure is not. Bounded: it stops by itself, on loopback only.
"""

import argparse
import html
import http.cookiejar
import json
import os
import random
import re
import signal
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

FORM = {"name": "Chaos Monkey", "email": "chaos@example.com", "ship-name": "Chaos Monkey",
        "ship-line1": "1 Loopback Road", "ship-city": "London", "ship-postcode": "SW1Y 4JH", "ship-country": "GB"}
PAUSE_SECONDS = 20


def stripe_token():
    """A token of the test card 4242..., made by the local Stripe as its Stripe.js makes it (None
    while it does not answer: the shopper's page could not pay either)."""
    from orders.stripelocal import PUBLISHABLE_KEY, LocalStripe

    data = urllib.parse.urlencode({"card[number]": "4242424242424242", "card[exp_month]": "12",
                                   "card[exp_year]": "2039", "card[cvc]": "123", "key": PUBLISHABLE_KEY}).encode()
    try:
        with urllib.request.urlopen(f"{LocalStripe().url()}/v1/tokens", data=data, timeout=30) as answer:
            return json.load(answer)["id"]
    except (OSError, ValueError, KeyError):
        return None
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
        card = stripe_token()
        if token is None or card is None:
            return "error"
        status, url, _ = self.request("/checkout/", {**FORM, "stripe_token": card, "csrfmiddlewaretoken": token})
        if status >= 500 or status == 0:
            return "error"
        return "placed" if "/order/" in url else "refused"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoppers", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=90, help="seconds of load (the kills are spread over them)")
    parser.add_argument("--db-kills", type=int, default=3)
    parser.add_argument("--worker-kills", type=int, default=2)
    parser.add_argument("--stripe-pauses", type=int, default=1, help=f"SIGSTOPs of the local Stripe, {PAUSE_SECONDS} s each")
    parser.add_argument("--settle", type=int, default=120, help="seconds recovery may take after the load")
    options = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="shop-chaos-"))
    shop_id = f"chaos-{workdir.name}"
    # PAYMENT_SHOP_ID: this run's payments only, on the machine's shared local Stripe.
    environ = {"PAYMENT_SHOP_ID": shop_id, "PAYMENT_RECOVERY_AFTER": "10",
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
        kills = ["db"] * options.db_kills + ["worker"] * options.worker_kills + ["stripe"] * options.stripe_pauses
        random.shuffle(kills)
        gap = options.seconds / (len(kills) + 1)
        healed = []
        for kind in kills:
            time.sleep(gap)
            if kind == "worker":
                print(f"  kill -9 worker {shop.kill_worker()}", flush=True)
                continue
            if kind == "stripe":
                print(f"  SIGSTOP the local Stripe for {PAUSE_SECONDS} s: {pause_stripe()}", flush=True)
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
        figures = tally(shop, shop_id)
        checked = shop.manage("check_inventory", timeout=600)
    print()
    print(f"checkouts tried       {sum(outcomes.values())} ({outcomes['placed']} placed, "
          f"{outcomes['refused']} refused with a page, {outcomes['error']} without a page)")
    print(f"payment attempts      {figures['attempts']}")
    print(f"charges               {figures['charges']}")
    print(f"refunds               {figures['refunds']}")
    print(f"orders                {figures['orders']}")
    print(f"charges w/o an order  {figures['unmatched']}   (must be 0)")
    print(f"orders w/o a charge   {figures['without_charge']}   (must be 0)")
    print(f"carts left pending    {figures['pending']}   (must be 0)")
    print("db kill -> next 200   " + ", ".join(f"{s:.1f} s" for s in healed) + "   (each < 30 s)")
    answer = (checked.stdout if checked.returncode == 0 else checked.stderr).strip().splitlines()
    print(f"check_inventory       exit {checked.returncode}: {answer[-1] if answer else ''}")
    ok = (figures["unmatched"] == 0 and figures["without_charge"] == 0 and figures["pending"] == 0 and all(s < 30 for s in healed)
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


def pause_stripe():
    """SIGSTOP the local Stripe, SIGCONT it ``PAUSE_SECONDS`` later: an outage, not a loss."""
    from orders.stripelocal import LocalStripe

    pid = LocalStripe().pid()
    if pid is None:
        return "not running"
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(PAUSE_SECONDS)
    finally:
        os.kill(pid, signal.SIGCONT)
    return f"pid {pid} continued"


def stripe_charges(shop_id):
    """``[(intent id, refunded in full)]`` of this run's succeeded PaymentIntents, as Stripe has them."""
    import stripe

    from orders.stripelocal import SECRET_KEY, LocalStripe

    client = stripe.StripeClient(SECRET_KEY, base_addresses={"api": LocalStripe().url()})
    found = []
    for intent in client.v1.payment_intents.list(params={"limit": 100}).auto_paging_iter():
        intent = intent.to_dict()
        if (intent.get("metadata") or {}).get("shop") != shop_id or intent["status"] != "succeeded":
            continue
        refunds = client.v1.refunds.list(params={"payment_intent": intent["id"], "limit": 100})
        given = sum(refund["amount"] for refund in refunds.auto_paging_iter())
        found.append((intent["id"], given >= intent["amount"]))
    return found


def tally(shop, shop_id):
    """The run's figures: attempts, charges, refunds, orders, unmatched charges, pending carts."""
    db = database(shop)
    charges = stripe_charges(shop_id)
    paid = {document["payment"]["reference"] for document in db["orders"].find({}, {"payment.reference": 1})}
    return {
        "attempts": db["payment_attempts"].count_documents({}),
        "charges": len(charges),
        "refunds": sum(1 for _, refunded in charges if refunded),
        "orders": db["orders"].count_documents({}),
        "unmatched": sum(1 for charge_id, refunded in charges if not refunded and charge_id not in paid),
        "without_charge": sum(1 for reference in paid if reference not in {c for c, _ in charges}),
        "pending": db["carts"].count_documents({"status": "pending"}),
    }


if __name__ == "__main__":
    main()
