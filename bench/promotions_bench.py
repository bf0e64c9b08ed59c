"""Benchmark: the cart page and checkout with 10 live automatic offers and 10,000 discount codes
in the database, against none (issue 43: within 1.2 times).

Run by hand (not a test), from the project::

    .venv/bin/python bench/promotions_bench.py [--pages 150] [--checkouts 40] [--rounds 2]

Production settings, the database ``shop_bench_promotions`` (emptied first), the Chinook
catalog, the machine's local Stripe. A cart of three albums. Phases, alternated ``--rounds``
times so that the machine's drift falls on both:

* *none*: no offer, no code in the database;
* *with*: 10 live offers (percent, fixed, multibuy, fixed price, free shipping; ranges by
  category, type and SKU, 3 of them covering the cart) and 10,000 codes (a batch), the
  shopper typing none;
* *with + code*: the same, the shopper having typed one of the 10,000 codes (it applies:
  one more read on the cart page, a claim at checkout).

The cart page: ``--pages`` GETs of ``/cart/`` through Django's test client (the session's
cart). Checkout: ``--checkouts`` ``place_order`` calls of a new cart of the same three lines
(the Stripe token made before the clock starts). Prints the median and p95 in ms, the round
trips of one call, and each phase's median over *none*'s.
"""

import argparse
import os
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

os.environ.setdefault("MONGODB_NAME", "shop_bench_promotions")
for _name, _value in {**benchsetup.LOAD_FROM_ONE_ADDRESS, "SHOP_RATE_DISCOUNT_CODE": "1000000/m"}.items():
    os.environ.setdefault(_name, _value)
benchsetup.production()

from django.test import Client  # noqa: E402

from checkout_support import SKUS, Results, fresh_shop, round_done, timed_checkouts  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402


def offers():
    """10 live offers: 3 cover the cart (its albums' type, one of its SKUs, everything over $5)."""
    from catalog.models import Category
    from promotions.models import Offer

    categories = [str(c.pk) for c in Category.objects.all()[:6]]
    made = [
        Offer(name="5% off albums", benefit=Offer.PERCENT, value=5, include_types=["Audio Album"], priority=1),
        Offer(name="3 for 2 on CHK-0001", benefit=Offer.MULTIBUY, quantity=3, pay=2, include_skus=["CHK-0001"]),
        Offer(name="$1 off over $5", benefit=Offer.FIXED, value=100, min_order=500),
        Offer(name="Free shipping over $500", benefit=Offer.FREE_SHIPPING, min_order=50_000),
        Offer(name="Any 2 films for $20", benefit=Offer.FIXED_PRICE, quantity=2, value=2000, include_types=["Film"]),
    ]
    made += [Offer(name=f"10% off category {n}", benefit=Offer.PERCENT, value=10, include_categories=[category],
                   exclude_skus=SKUS) for n, category in enumerate(categories[:5])]
    for offer in made:
        offer.save()
    return len(made)


def codes():
    """10,000 codes: a source code and a batch of 9,999 like it; returns one of the batch."""
    from promotions.models import Voucher

    source = Voucher(code="BENCH", name="Bench 50 cents off", campaign="bench", benefit=Voucher.FIXED, value=50,
                     limit=10_000, combinable=True)
    source.save()
    return sorted(Voucher.objects.create_batch(source, 9_999, "B"))[0]


def empty():
    from promotions.models import Offer, Voucher

    Offer.objects.collection.delete_many({})
    Voucher.objects.collection.delete_many({})
    Offer.objects.forget()


def cart_page(typed, count):
    """``(ms of each GET, round trips of one)`` of /cart/ for a session holding the cart."""
    client = Client()
    for sku in SKUS:
        assert client.post("/cart/add/", {"sku": sku, "qty": 1}).status_code in (200, 302)
    if typed:
        assert client.post("/cart/code/", {"code": typed}).status_code in (200, 302)
    client.get("/cart/")  # warm
    with count_operations() as ops:
        client.get("/cart/")
    times = []
    for _ in range(count):
        started = time.perf_counter()
        response = client.get("/cart/")
        times.append(1000 * (time.perf_counter() - started))
    assert response.status_code == 200
    assert (typed in response.content.decode()) if typed else True
    return times, ops.total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=150)
    parser.add_argument("--checkouts", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    provider = fresh_shop()
    results = Results(("none", "with", "with + code"))
    for round_number in range(args.rounds):
        empty()
        count = 0
        for phase, code in (("none", ""), ("with", ""), ("with + code", None)):
            if phase == "with":
                count, typed = offers(), codes()
            code = typed if code is None else code
            results.add(phase, "page", cart_page(code, args.pages))
            results.add(phase, "checkout", timed_checkouts(
                args.checkouts, provider, codes=(code,) if code else (),
                check=lambda order, code=code: not code or any(d.code == code for d in order.discounts)))
        round_done(round_number, args.rounds, f" ({count} offers, 10,000 codes)")
    results.print("cart pages")


if __name__ == "__main__":
    main()
