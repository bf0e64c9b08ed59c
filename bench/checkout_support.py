"""What the checkout benchmarks share (``checkout_bench.py``, ``promotions_bench.py``): a fresh
shop with the Chinook catalog and the cart's SKUs in stock, timed ``place_order`` calls of a
new cart of those SKUs, and the table of each phase against the first.

Imported after ``benchsetup`` has set up Django (the scripts import it after
``benchsetup.production()``).
"""

import os
import statistics
import sys
import time

SKUS = ["CHK-0001", "CHK-0002", "CHK-0004"]  # CHK-0003 sells only as its CD and LP variants
ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB", "region": ""}


def fresh_shop():
    """Empty the database ``MONGODB_NAME``, migrate, collect the static files (the production
    settings' manifest), load the Chinook catalog and give ``SKUS`` a million units each.
    Returns the ``StripeProvider`` the checkouts pay with (the machine's local Stripe)."""
    from django.core.management import call_command
    from django.db import connection

    from inventory.models import Inventory
    from orders.payments import StripeProvider

    connection.ensure_connection()
    connection.connection.drop_database(os.environ["MONGODB_NAME"])
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("load_catalog", "--reset", verbosity=0)
    Inventory.objects.ensure_stock(SKUS, 0)
    for sku in SKUS:
        Inventory.objects.set_stock(sku, 1_000_000)
    return StripeProvider()


def timed_checkouts(count, provider, codes=(), as_request=False, check=None):
    """``(ms of each place_order, round trips of the last)``: ``count`` checkouts (after one
    that warms the process up) of a new cart of ``SKUS`` to ``ADDRESS`` with the discount
    ``codes``, the Stripe token made before the clock starts. ``as_request``: between Django's
    request signals, so the work kept for after the response (the confirmation e-mail and its
    invoice's PDF, ``core.afterresponse``) runs after the clock, and round trips counted in
    this thread only; otherwise that work is timed and counted too. ``check(order)``, when
    given, is asserted of each order."""
    from django.core.signals import request_finished, request_started

    from bench.chaos import stripe_token
    from catalog.models import Product
    from core.mongo.counter import count_operations
    from inventory.models import Cart
    from orders.checkout import place_order

    details = {"title": "Bench album"}
    prices = {sku: fact.price for sku, fact in Product.objects.checkout_facts(SKUS).items()}
    times, trips = [], 0
    for number in range(count + 1):
        cart = Cart.objects.create_cart()
        for sku in SKUS:
            Cart.objects.add_item(cart.id, sku, 1, {**details, "price": prices[sku]}, 10)
        token = stripe_token()
        if as_request:
            request_started.send(sender=None)
        with count_operations(this_thread=as_request) as ops:
            started = time.perf_counter()
            order = place_order(cart.id, provider, token, "Bench", "bench@example.com", address=ADDRESS,
                                codes=tuple(codes))
            ms = 1000 * (time.perf_counter() - started)
        if as_request:
            request_finished.send(sender=None)
        assert order.number and (check is None or check(order))
        if number:
            times.append(ms)
            trips = ops.total
    return times, trips


def p95(values):
    """The 95th percentile of ``values`` (numbers)."""
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


class Results:
    """Each phase's times and round trips of a page and of checkout, printed against the first
    phase's medians (``phases``: their names, the first the base)."""

    def __init__(self, phases):
        self.figures = {phase: {"page": [], "checkout": [], "page trips": 0, "checkout trips": 0}
                        for phase in phases}

    def add(self, phase, what, timed):
        """Add ``timed`` (``(times in ms, round trips)``) to ``phase``'s ``what`` ("page", "checkout")."""
        times, trips = timed
        self.figures[phase][what] += times
        self.figures[phase][f"{what} trips"] = trips

    def print(self, page_name):
        """The load average, then a line per phase and what, then how many of each (``page_name``:
        what the page is, e.g. "cart pages")."""
        with open("/proc/loadavg") as load:
            print(f"load average at the end: {load.read().split()[0]}")
        base_phase = next(iter(self.figures))
        base = {what: statistics.median(self.figures[base_phase][what]) for what in ("page", "checkout")}
        print(f"{'phase':12s} {'what':9s} {'median ms':>10s} {'p95 ms':>8s} {'trips':>6s} {'x ' + base_phase:>7s}")
        for phase, figures in self.figures.items():
            for what in ("page", "checkout"):
                median = statistics.median(figures[what])
                print(f"{phase:12s} {what:9s} {median:10.1f} {p95(figures[what]):8.1f} "
                      f"{figures[what + ' trips']:6d} {median / base[what]:7.2f}")
        first = self.figures[base_phase]
        print(f"({len(first['page'])} {page_name} and {len(first['checkout'])} checkouts a phase)")


def round_done(number, rounds, extra=""):
    """Say on stderr that round ``number`` (from 0) of ``rounds`` is done."""
    print(f"  round {number + 1}/{rounds} done{extra}", file=sys.stderr)
