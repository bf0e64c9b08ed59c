"""A cart's maximum age (``CART_MAX_AGE``): a cart touched every few minutes still expires once
it is that old, at ``expire_carts``, at the next add (which starts a new cart) and on the cart
page; carts from before creation times were recorded count from their ``last_modified``."""

import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.mongo.counter import count_operations
from inventory.models import Cart, Inventory
from core import clock

from tests.support.inventory import add, assert_invariant, cart_doc, inventory, stock
from tests.support.shopper import OTHER, SKU, session_cart
from tests.support.shopper import add as shopper_add

DAY = 24 * 60 * 60


def make_old(cart_id, seconds):
    """Move the cart's creation ``seconds`` into the past; it was touched just now."""
    Cart.objects.collection.update_one(
        {"_id": cart_id}, {"$set": {"created_at": clock.now() - datetime.timedelta(seconds=seconds),
                                    "last_modified": clock.now()}})


def make_undated(cart_id, idle_seconds):
    """The cart as an earlier version stored it: no ``created_at``, last touched ``idle_seconds`` ago."""
    Cart.objects.collection.update_one(
        {"_id": cart_id}, {"$unset": {"created_at": ""},
                           "$set": {"last_modified": clock.now() - datetime.timedelta(seconds=idle_seconds)}})


@pytest.fixture
def two_carts():
    stock("A", 10)
    old, young = Cart.objects.create_cart(), Cart.objects.create_cart()
    add(old.id, "A", 2)
    add(young.id, "A", 3)
    return old.id, young.id


def test_a_new_cart_records_when_it_was_started():
    before = clock.now()
    cart = Cart.objects.create_cart()
    assert before <= clock.aware(cart_doc(cart.id)["created_at"]) <= clock.now()
    assert cart.created_at == clock.aware(cart_doc(cart.id)["created_at"])


def test_expire_takes_a_recently_touched_cart_past_its_maximum_age(two_carts, settings):
    settings.CART_MAX_AGE = DAY
    old, young = two_carts
    make_old(old, DAY + 60)
    make_old(young, DAY - 60)
    assert Cart.expiry.expire(30 * 60) == {"expired": 1, "returned": 1}
    assert cart_doc(old)["status"] == "expired" and cart_doc(young)["status"] == "active"
    assert inventory("A")["qty"] == 7 and [e["cart_id"] for e in inventory("A")["carted"]] == [young]
    assert_invariant()


def test_a_pending_cart_past_its_maximum_age_is_left_to_reconcile_payments(two_carts):
    old, _ = two_carts
    make_old(old, DAY * 2)
    assert Cart.objects.lock_for_checkout(old, "k" * 24) is not None
    assert Cart.expiry.expire(30 * 60, max_age=DAY) == {"expired": 0, "returned": 0}
    assert cart_doc(old)["status"] == "pending"


def test_the_command_takes_max_age(two_carts):
    old, young = two_carts
    make_old(old, 7200)
    out = StringIO()
    call_command("expire_carts", "--timeout", "3600", "--max-age", "3600", stdout=out, stderr=StringIO())
    assert "Expired 1 cart(s); returned 1 reservation(s)" in out.getvalue()
    assert cart_doc(old)["status"] == "expired" and cart_doc(young)["status"] == "active"
    with pytest.raises(CommandError):
        call_command("expire_carts", "--max-age", "-1", stdout=StringIO(), stderr=StringIO())


def test_carts_without_a_creation_time_count_from_their_last_modified(two_carts):
    old, young = two_carts
    make_undated(old, 2 * 3600)  # idle 2 h: older than the 1 h maximum by its last_modified
    make_undated(young, 60)
    young_touched = cart_doc(young)["last_modified"]
    assert Cart.expiry.expire(DAY, max_age=3600) == {"expired": 1, "returned": 1}
    assert cart_doc(old)["status"] == "expired"
    # Dated from its last touch: it expires an hour after that however often it is touched.
    assert cart_doc(young)["status"] == "active" and cart_doc(young)["created_at"] == young_touched
    add(young, "A", 1)
    assert cart_doc(young)["created_at"] == young_touched
    Cart.objects.collection.update_one({"_id": young}, {"$set": {
        "created_at": young_touched - datetime.timedelta(seconds=3600)}})
    assert Cart.expiry.expire(DAY, max_age=3600) == {"expired": 1, "returned": 1}
    assert inventory("A")["qty"] == 10
    assert_invariant()


def test_an_undated_cart_is_judged_by_its_last_modified_at_an_add(two_carts, settings):
    settings.CART_MAX_AGE = 3600
    old, young = two_carts
    make_undated(old, 2 * 3600)
    make_undated(young, 60)
    assert Cart.expiry.expire_past_max_age(young) is False
    assert Cart.expiry.expire_past_max_age(old) is True
    assert cart_doc(old)["status"] == "expired" and cart_doc(young)["status"] == "active"
    assert inventory("A")["qty"] == 7


def test_the_max_age_pass_reads_only_the_carts_touched_within_the_timeout(two_carts):
    """After the idle pass, the carts judged by their age are read on ``status_last_modified``
    (an equality and a range, exactly the index's fields: local-server difference 24), not
    every active cart; the carts keep no index on ``created_at`` (difference 23)."""
    old, young = two_carts
    make_old(old, 7200)  # created two hours ago, touched now
    threshold = clock.now() - datetime.timedelta(seconds=600)
    for _ in range(20):  # idle active carts, older than the threshold: the idle pass's
        Cart.objects.collection.insert_one({"_id": Cart._meta.pk.get_default(), "status": "active",
                                            "created_at": clock.now() - datetime.timedelta(days=9),
                                            "last_modified": clock.now() - datetime.timedelta(days=1),
                                            "items": []})
    database = Cart.objects.collection.database
    assert "status_created_at" not in database.carts.index_information()
    with count_operations() as ops:
        live = Cart.expiry.touched_since(threshold)
    assert sorted(c["_id"] for c in live) == sorted([old, young]) and ops.total == 1
    query = ops.commands[0]["filter"]
    plan = database.command("explain", {"find": "carts", "filter": query}, verbosity="executionStats")
    assert "status_last_modified" in str(plan["queryPlanner"]["winningPlan"]), plan["queryPlanner"]
    assert plan["executionStats"]["totalDocsExamined"] == 2, plan["executionStats"]


def test_an_expiry_takes_a_cart_past_its_age_and_dates_an_undated_one_among_the_touched(two_carts, settings):
    settings.CART_MAX_AGE = 3600
    old, young = two_carts
    make_old(old, 7200)
    make_undated(young, 5)
    report = Cart.expiry.expire(600)
    assert report["expired"] == 1
    assert cart_doc(old)["status"] == "expired"
    young_doc = cart_doc(young)
    assert young_doc["status"] == "active" and young_doc["created_at"] == young_doc["last_modified"]


# -- the pages ---------------------------------------------------------------

@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)
    Inventory.objects.set_stock(OTHER, 5)


def test_adding_to_a_cart_past_its_maximum_age_starts_a_new_cart(client, shop, settings):
    settings.CART_MAX_AGE = 3600
    shopper_add(client, qty=2)
    old = session_cart(client)
    make_old(old, 3700)  # touched just now, started over an hour ago
    response = shopper_add(client, OTHER, 1, follow=True)
    assert "expired" in response.content.decode()
    new = session_cart(client)
    assert new != old
    assert cart_doc(old)["status"] == "expired"
    assert [line["sku"] for line in cart_doc(new)["items"]] == [OTHER]
    assert client.session["cart_count"] == 1
    assert inventory(SKU)["qty"] == 5
    assert_invariant()


def test_adding_to_a_young_cart_keeps_it(client, shop, settings):
    settings.CART_MAX_AGE = 3600
    shopper_add(client, qty=1)
    cart_id = session_cart(client)
    make_old(cart_id, 3500)
    shopper_add(client, OTHER, 1)
    assert session_cart(client) == cart_id and len(cart_doc(cart_id)["items"]) == 2


def test_the_cart_page_and_checkout_treat_a_cart_past_its_maximum_age_as_expired(client, shop, settings):
    settings.CART_MAX_AGE = 3600
    shopper_add(client, qty=2)
    old = session_cart(client)
    make_old(old, 3700)
    page = client.get("/cart/").content.decode()
    assert "Your cart expired" in page
    assert cart_doc(old)["status"] == "expired" and inventory(SKU)["qty"] == 5
    assert session_cart(client) is None
    shopper_add(client, qty=1)
    make_old(session_cart(client), 3700)
    response = client.get("/checkout/", follow=True)
    assert "Your cart expired" in response.content.decode()
    assert_invariant()
