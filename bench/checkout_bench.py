"""Benchmark: checkout with shipping zones and tax rates configured, against without (issue 44:
within 1.2 times).

Run by hand (not a test), from the project::

    .venv/bin/python bench/checkout_bench.py [--pages 100] [--checkouts 40] [--rounds 2]

Production settings, the database ``shop_bench_checkout`` (emptied first), the Chinook
catalog, the machine's local Stripe. A cart of three albums shipped to London. Phases,
alternated ``--rounds`` times so that the machine's drift falls on both:

* *bare*: no tax rate kept (every order at ``SHOP_TAX_PERCENT``), the rest of world (the
  migration's seed) the only zone;
* *configured*: the seeded rates (the EU's 27 member states, the UK, the US) and the three
  default zones (``shipping.defaults``: United Kingdom, European Union, rest of world).

The checkout page: ``--pages`` GETs of ``/checkout/`` by a signed-in shopper whose default
address is in London (the page priced for it: its tax rates and its zone's methods).
Checkout: ``--checkouts`` ``place_order`` calls of a new cart of the same three lines (the
Stripe token made before the clock starts), timed as the shopper waits for them: the work a
request leaves for after its response (the confirmation e-mail with the invoice's PDF) runs
after the clock stops. Prints the median and p95 in ms, the round trips
of one call (counted in the calling thread), and *configured*'s median over *bare*'s.
"""

import argparse
import os
import statistics
import sys
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

os.environ.setdefault("MONGODB_NAME", "shop_bench_checkout")
for _name, _value in benchsetup.LOAD_FROM_ONE_ADDRESS.items():
    os.environ.setdefault(_name, _value)
benchsetup.production()

from django.core.management import call_command  # noqa: E402
from django.core.signals import request_finished, request_started  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from core.mongo.counter import count_operations  # noqa: E402

SKUS = ["CHK-0001", "CHK-0002", "CHK-0004"]  # CHK-0003 sells only as its CD and LP variants
ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB", "region": ""}


def bare(kept_rates):
    """No rate, the rest of world alone (its seeded method back)."""
    from shipping.models import ShippingMethod, ShippingZone
    from taxes.models import TaxRate

    TaxRate.objects.collection.delete_many({})
    ShippingZone.objects.filter(rest_of_world=False).delete()
    world = ShippingZone.objects.get(rest_of_world=True)
    ShippingMethod.objects.filter(zone=world).delete()
    ShippingMethod.objects.create(zone=world, name="Standard", kind="standard", pricing="setting", bands=[],
                                  free_over=None, minimum_order=0, days_min=3, days_max=7, position=0)
    ShippingZone.objects.forget()


def configured(kept_rates):
    """The seeded rates and the three default zones."""
    from shipping.defaults import load_defaults
    from taxes.models import TaxRate

    TaxRate.objects.collection.delete_many({})
    TaxRate.objects.collection.insert_many([dict(rate) for rate in kept_rates])
    load_defaults("GB")


def shopper():
    """A signed-in client with London as its default address and the three albums in its cart."""
    from django.contrib.auth import get_user_model

    from addresses.models import SavedAddress

    user = get_user_model().objects.create_user(f"bench{time.monotonic_ns()}@example.com", "", "a-long-Passphrase-7")
    SavedAddress.objects.add(str(user.pk), {k: v for k, v in ADDRESS.items()})
    client = Client()
    client.force_login(user)
    for sku in SKUS:
        assert client.post("/cart/add/", {"sku": sku, "qty": 1}).status_code in (200, 302)
    return client


def checkout_pages(count):
    """``(ms of each GET /checkout/, round trips of one)``."""
    client = shopper()
    response = client.get("/checkout/")  # warm
    # Priced for the saved address (no template context outside the test runner: the page's own field).
    assert response.status_code == 200 and 'name="priced_for" value="GB|' in response.content.decode()
    with count_operations(this_thread=True) as ops:
        client.get("/checkout/")
    times = []
    for _ in range(count):
        started = time.perf_counter()
        response = client.get("/checkout/")
        times.append(1000 * (time.perf_counter() - started))
    assert response.status_code == 200
    return times, ops.total


def checkouts(count, provider):
    """``(ms of each place_order, round trips of the last)``."""
    from bench.chaos import stripe_token
    from catalog.models import Product
    from inventory.models import Cart
    from orders.checkout import place_order

    prices = {sku: fact.price for sku, fact in Product.objects.checkout_facts(SKUS).items()}
    times, trips = [], 0
    for number in range(count + 1):
        cart = Cart.objects.create_cart()
        for sku in SKUS:
            Cart.objects.add_item(cart.id, sku, 1, {"title": "Bench album", "price": prices[sku]}, 10)
        token = stripe_token()
        # As in a request: the work kept for after the response (the confirmation e-mail and its
        # invoice's PDF, core.afterresponse) runs once the clock and the count have stopped.
        request_started.send(sender=None)
        with count_operations(this_thread=True) as ops:
            started = time.perf_counter()
            order = place_order(cart.id, provider, token, "Bench", "bench@example.com", address=ADDRESS)
            ms = 1000 * (time.perf_counter() - started)
        request_finished.send(sender=None)
        assert order.number
        if number:  # the first warms the process up
            times.append(ms)
            trips = ops.total
    return times, trips


def p95(values):
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--checkouts", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    connection.ensure_connection()
    connection.connection.drop_database(os.environ["MONGODB_NAME"])
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # the production settings' manifest
    call_command("load_catalog", "--reset", verbosity=0)
    from inventory.models import Inventory
    from orders.payments import StripeProvider
    from taxes.models import TaxRate

    kept_rates = list(TaxRate.objects.collection.find({}))
    Inventory.objects.ensure_stock(SKUS, 0)
    for sku in SKUS:
        Inventory.objects.set_stock(sku, 1_000_000)
    provider = StripeProvider()
    results = {phase: {"page": [], "checkout": [], "page trips": 0, "checkout trips": 0}
               for phase in ("bare", "configured")}
    for round_number in range(args.rounds):
        for phase, prepare in (("bare", bare), ("configured", configured)):
            prepare(kept_rates)
            page, trips = checkout_pages(args.pages)
            results[phase]["page"] += page
            results[phase]["page trips"] = trips
            done, trips = checkouts(args.checkouts, provider)
            results[phase]["checkout"] += done
            results[phase]["checkout trips"] = trips
        print(f"  round {round_number + 1}/{args.rounds} done", file=sys.stderr)
    with open("/proc/loadavg") as load:
        print(f"load average at the end: {load.read().split()[0]}")
    base = {what: statistics.median(results["bare"][what]) for what in ("page", "checkout")}
    print(f"{'phase':12s} {'what':9s} {'median ms':>10s} {'p95 ms':>8s} {'trips':>6s} {'x bare':>7s}")
    for phase, figures in results.items():
        for what in ("page", "checkout"):
            median = statistics.median(figures[what])
            print(f"{phase:12s} {what:9s} {median:10.1f} {p95(figures[what]):8.1f} {figures[what + ' trips']:6d} "
                  f"{median / base[what]:7.2f}")
    print(f"({len(results['bare']['page'])} checkout pages and {len(results['bare']['checkout'])} checkouts a phase)")


if __name__ == "__main__":
    main()
