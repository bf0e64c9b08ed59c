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
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

os.environ.setdefault("MONGODB_NAME", "shop_bench_checkout")
for _name, _value in benchsetup.LOAD_FROM_ONE_ADDRESS.items():
    os.environ.setdefault(_name, _value)
benchsetup.production()

from django.test import Client  # noqa: E402

from checkout_support import ADDRESS, SKUS, Results, fresh_shop, round_done, timed_checkouts  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--checkouts", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    provider = fresh_shop()
    from taxes.models import TaxRate

    kept_rates = list(TaxRate.objects.collection.find({}))
    results = Results(("bare", "configured"))
    for round_number in range(args.rounds):
        for phase, prepare in (("bare", bare), ("configured", configured)):
            prepare(kept_rates)
            results.add(phase, "page", checkout_pages(args.pages))
            results.add(phase, "checkout", timed_checkouts(args.checkouts, provider, as_request=True))
        round_done(round_number, args.rounds)
    results.print("checkout pages")


if __name__ == "__main__":
    main()
