"""Abandoned carts give their stock back without an operator: an add (or a quantity
raise) short of stock first expires the carts idle past ``CART_TIMEOUT`` that hold
the SKU, then tries once more."""

import pytest

from inventory.exceptions import InadequateInventory
from inventory.models import Cart
from core.mongo.counter import count_operations

from tests.support.inventory import add, age_carts, age_reservations, assert_invariant, cart_doc, inventory, stock


@pytest.fixture(autouse=True)
def timeout(settings):
    settings.CART_TIMEOUT = 1800


def abandoned_cart_holding(sku, qty):
    cart = Cart.objects.create_cart().id
    add(cart, sku, qty)
    age_carts(3600)
    age_reservations(3600)
    return cart


def test_an_add_short_of_stock_reclaims_an_abandoned_carts_reservation():
    stock("LAST", 2)
    abandoned = abandoned_cart_holding("LAST", 2)
    shopper = Cart.objects.create_cart().id
    assert add(shopper, "LAST", 2) == 2
    assert cart_doc(abandoned)["status"] == "expired"
    assert inventory("LAST")["qty"] == 0
    assert [e["cart_id"] for e in inventory("LAST")["carted"]] == [shopper]
    assert_invariant()


def test_a_quantity_raise_reclaims_too():
    stock("LAST", 3)
    shopper = Cart.objects.create_cart().id
    add(shopper, "LAST", 1)
    abandoned = Cart.objects.create_cart().id
    add(abandoned, "LAST", 2)
    age_carts(3600)
    age_reservations(3600)
    Cart.objects.collection.update_one({"_id": shopper}, {"$currentDate": {"last_modified": True}})
    Cart.objects.update_quantity(shopper, "LAST", 3)
    assert cart_doc(abandoned)["status"] == "expired"
    assert cart_doc(shopper)["status"] == "active"
    assert inventory("LAST")["qty"] == 0
    assert_invariant()


def test_a_cart_still_in_use_keeps_its_reservation():
    stock("LAST", 1)
    holder = Cart.objects.create_cart().id
    add(holder, "LAST", 1)
    age_reservations(3600)  # an old reservation, but its cart changed a moment ago
    with pytest.raises(InadequateInventory):
        add(Cart.objects.create_cart().id, "LAST", 1)
    assert cart_doc(holder)["status"] == "active"
    assert inventory("LAST")["carted"][0]["cart_id"] == holder
    assert_invariant()


def test_a_cart_paying_is_never_reclaimed_even_past_the_timeout():
    # Its payment may be taken: only reconcile_payments settles a pending cart.
    stock("LAST", 1)
    paying = Cart.objects.create_cart().id
    add(paying, "LAST", 1)
    Cart.objects.collection.update_one({"_id": paying}, {"$set": {"status": "pending"}})
    age_carts(3600)
    age_reservations(3600)
    with pytest.raises(InadequateInventory):
        add(Cart.objects.create_cart().id, "LAST", 1)
    assert cart_doc(paying)["status"] == "pending"
    assert inventory("LAST")["carted"][0]["cart_id"] == paying
    assert_invariant()


def test_an_add_with_stock_to_spare_costs_no_extra_round_trip():
    stock("PLENTY", 10)
    abandoned_cart_holding("PLENTY", 2)
    shopper = Cart.objects.create_cart().id
    with count_operations() as ops:
        add(shopper, "PLENTY", 1)
    assert ops.total == 3  # the cart line, the reservation and the cart's units read, as always
    assert Cart.objects.collection.count_documents({"status": "expired"}) == 0
