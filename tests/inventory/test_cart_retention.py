"""Retention: ``purge_carts`` deletes finished carts after the retention period, and expired sessions."""

import datetime
from io import StringIO

import pytest
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.managers.ledger import new_key
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from core.sessions import SessionStore

from tests.support.inventory import add, assert_invariant, cart_doc, inventory, stock
from tests.support.payments import card_token

DAY = 24 * 3600


def purge(*args):
    out = StringIO()
    call_command("purge_carts", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def age(cart_id, days):
    document = cart_doc(cart_id)
    Cart.objects.collection.update_one(
        {"_id": cart_id}, {"$set": {"last_modified": document["last_modified"] - datetime.timedelta(days=days)}})


def checked_out(sku="A", qty=2):
    cart = Cart.objects.create_cart()
    add(cart.id, sku, qty)
    order = place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com")
    return cart, order


def expired_cart(sku="A"):
    cart = Cart.objects.create_cart()
    add(cart.id, sku, 1)
    Cart.expiry.expire_cart(cart.id)
    assert cart_doc(cart.id)["status"] == "expired"
    return cart


def test_finished_carts_older_than_the_retention_leave_and_the_order_keeps_the_lines(settings):
    settings.CART_RETENTION = 30 * DAY
    stock("A", 10)
    old_sale, order = checked_out()
    old_expired = expired_cart()
    recent_sale, _ = checked_out()
    idle = Cart.objects.create_cart()
    add(idle.id, "A", 1)
    for cart in (old_sale, old_expired, idle):
        age(cart.id, 31)

    out = purge()

    assert "Deleted 2 finished cart(s)" in out
    assert cart_doc(old_sale.id) is None and cart_doc(old_expired.id) is None
    assert cart_doc(recent_sale.id)["status"] == "complete"
    assert cart_doc(idle.id)["status"] == "active"  # an idle active cart is expire_carts' business
    # The order keeps what the cart held: its lines, prices and totals, found by number and by cart.
    kept = Order.objects.get_by_number(order.number)
    assert [(line.sku, line.qty, line.price) for line in kept.lines] == [("A", 2, 999)]
    assert kept.total == order.total and Order.objects.get_by_cart(old_sale.id).number == order.number
    assert_invariant()


def test_a_retention_of_zero_keeps_nothing_finished_and_a_second_run_deletes_nothing():
    stock("A", 10)
    checked_out()
    expired_cart()
    assert "Deleted 2 finished cart(s)" in purge("--retention", "0")
    assert "Deleted 0 finished cart(s)" in purge("--retention", "0")
    assert Cart.objects.collection.count_documents({}) == 0


def test_a_finished_cart_still_holding_a_reservation_stays_until_cleanup_settles_it():
    """Checkout's pull crashed: the complete cart's entry must not outlive its cart, or
    cleanup_inventory would take the cart for gone and put sold units back on the shelf."""
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    entries = inventory("A")["carted"]
    place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com")
    Inventory.objects.collection.update_one({"_id": "A"}, {"$set": {"carted": entries}})  # the pull "crashed"

    assert "kept 1 still holding" in purge("--retention", "0")
    assert cart_doc(cart.id)["status"] == "complete"
    call_command("cleanup_inventory", "--timeout", "0", stdout=StringIO(), stderr=StringIO())
    assert (inventory("A")["qty"], inventory("A")["carted"]) == (8, [])
    purge("--retention", "0")
    assert cart_doc(cart.id) is None
    assert inventory("A")["qty"] == 8  # sold units stay sold
    assert_invariant()


def test_the_cart_of_an_unsettled_payment_stays():
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    key = new_key()
    Cart.objects.lock_for_checkout(cart.id, key)
    PaymentAttempt.objects.begin(key, cart.id, 999, {})
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"status": "complete"}})
    Inventory.objects.release_sold(cart.id)  # no reservation keeps it: only the unsettled payment
    assert "kept 0 still holding" in purge("--retention", "0")
    assert cart_doc(cart.id) is not None


def test_expired_sessions_are_cleared_in_the_same_run():
    live, old = SessionStore(), SessionStore()
    live["x"] = old["x"] = 1
    live.save()
    old.save()
    Session.objects.filter(session_key=old.session_key).update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    purge()
    assert set(Session.objects.values_list("session_key", flat=True)) == {live.session_key}


def test_a_negative_retention_is_refused_and_changes_nothing():
    stock("A", 10)
    checked_out()
    with pytest.raises(CommandError, match="--retention must be 0 or more"):
        purge("--retention", "-1")
    assert Cart.objects.collection.count_documents({}) == 1
