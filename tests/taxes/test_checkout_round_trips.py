"""Checkout's round trips with tax by destination and shipping zones (issue 44), counted in the
checkout's own thread (``count_operations(this_thread=True)``: a Stripe webhook another thread
answers meanwhile is not counted): the same with the default zones and every seeded rate as
with the rest of world alone and no rate, the rates one read, the zones none once cached."""

import pytest
from django.test import Client

from core.mongo.counter import count_operations
from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.models import Order
from orders.payments import StripeProvider
from promotions.models import Offer
from shipping.defaults import load_defaults
from shipping.models import ShippingZone
from taxes.models import TaxRate
from tests.support.payments import card_token
from tests.support.shopper import CARD, SKU, add

LONDON = {"name": "Ada", "line1": "12 St James's Square", "line2": "", "city": "London", "postcode": "SW1Y 4JH",
          "country": "GB", "region": ""}

#: A warm checkout paid by card, outside a request, in order: the cart locked (update, then the
#: locked cart read), its reservations, the one re-read of prices, weights and types, the
#: destination's tax rates, the types' tax classes (the catalog cache lives for a request:
#: none in a serving process's warm request), the ledger's attempt (inserted; the intent set;
#: charged, then read back), the order number, the order, the cart completed, the sold
#: reservations pulled, the attempt completed and read back. Nothing for shipping: the zones
#: are cached (shipping.managers).
WARM_CHECKOUT = [
    ("carts", "update"), ("carts", "find"), ("inventory", "find"), ("products", "find"), ("tax_rates", "find"),
    ("product_types", "find"), ("payment_attempts", "insert"), ("payment_attempts", "update"),
    ("payment_attempts", "update"), ("payment_attempts", "find"), ("counters", "findAndModify"),
    ("orders", "insert"), ("carts", "update"), ("inventory", "update"), ("payment_attempts", "update"),
    ("payment_attempts", "find"),
]


def bare():
    """No tax rate kept, the rest of world (the migration's seed) the only zone."""
    TaxRate.objects.all().delete()
    ShippingZone.objects.filter(rest_of_world=False).delete()
    ShippingZone.objects.forget()


def configured():
    """The seeded rates of the EU, the UK and the US, and the three default zones."""
    from importlib import import_module

    from django.apps import apps

    import_module("taxes.migrations.0002_taxship").seed(apps, None)
    load_defaults("GB")
    assert TaxRate.objects.count() > 50 and ShippingZone.objects.count() == 3


@pytest.fixture
def shop(chinook, monkeypatch):
    from orders.signals import order_placed

    # The checkout's own round trips: the order_placed receivers (analytics, e-mail, invoice)
    # are counted by their own tests.
    monkeypatch.setattr(order_placed, "send_robust", lambda sender, **kwargs: [])
    Inventory.objects.set_stock(SKU, 100)
    Order.objects.next_number()  # the counter exists, as after a shop's first order


def warm_checkout():
    """The round trips of a checkout after a first one warmed the caches (offers, zones, types)."""
    operations = []
    for _ in range(2):
        cart = Cart.objects.create_cart()
        Cart.objects.add_item(cart.id, SKU, 1, {"title": "Track", "price": price()}, 10)
        token = card_token()
        with count_operations(this_thread=True) as ops:
            place_order(cart.id, StripeProvider(), token, "Ada", "ada@example.com", address=LONDON)
        operations = ops.operations
    return operations


def price():
    from catalog.models import Product

    return Product.objects.checkout_facts([SKU])[SKU].price


def test_place_order_costs_the_same_round_trips_with_zones_and_rates_configured_or_not(shop):
    Offer.objects.active()
    bare()
    assert warm_checkout() == WARM_CHECKOUT
    configured()
    assert warm_checkout() == WARM_CHECKOUT
    ShippingZone.objects.forget()  # e.g. staff saved a zone: the next checkout reads the table again
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, SKU, 1, {"title": "Track", "price": price()}, 10)
    with count_operations(this_thread=True) as ops:
        place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=LONDON)
    assert [op for op in ops.operations if op[0].startswith("shipping")] == [
        ("shipping_zones", "find"), ("shipping_methods", "find")]
    assert ops.total == len(WARM_CHECKOUT) + 2


def test_the_checkout_page_and_its_post_cost_the_same_configured_or_not(shop):
    def page_and_post():
        client = Client()
        add(client)
        client.get("/checkout/")  # warms the process's caches for this cart's SKU
        with count_operations(this_thread=True) as shown:
            page = client.post("/checkout/", {**CARD, "confirmed_total": "1", "priced_for": ""})
        assert page.status_code == 200 and "the total is" in page.content.decode()  # shown for the address
        form = {**CARD, "confirmed_total": page.context["totals"].total, "priced_for": page.context["priced_for"]}
        with count_operations(this_thread=True) as placed:
            assert client.post("/checkout/", form).status_code == 302
        return shown.operations, placed.operations

    Offer.objects.active()
    bare()
    bare_page, bare_post = page_and_post()
    configured()
    ShippingZone.objects.table()
    with_page, with_post = page_and_post()
    def shown(ops):
        return " ".join(f"{a}.{b}" for a, b in ops if a != "rate_limits")  # a new client's counter: insert, else update

    assert shown(with_page) == shown(bare_page) and shown(with_post) == shown(bare_post), (
        shown(bare_page), shown(with_page), shown(bare_post), shown(with_post))
    # The page priced for the address: its tax rates once, no shipping read (cached).
    assert [op for op in with_page if op[0] in ("tax_rates", "shipping_zones", "shipping_methods")] == [
        ("tax_rates", "find")]
    # The POST prices the page's figures, then checkout prices from its own re-read: two reads of
    # the rates, none of the zones.
    assert [op for op in with_post if op[0] in ("tax_rates", "shipping_zones", "shipping_methods")] == [
        ("tax_rates", "find")] * 2
