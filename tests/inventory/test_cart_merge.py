"""The cart merge at log-in: combining, cutting, reservations moved, races, round trips."""

import random
import threading

import pytest

from inventory.exceptions import CartInactive, InventoryError
from orders.exceptions import CheckoutError
from inventory.merge import merge_guest_cart
from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.models import Order
from orders.payments import StripeProvider
from tests.support.payments import card_token
from core.mongo.counter import count_operations

from tests.support.inventory import DETAILS, add, assert_invariant, cart_doc, inventory, stock

MAX = 10
USER = "user-1"


def lines(cart_id):
    return {line["sku"]: line["qty"] for line in cart_doc(cart_id)["items"]}


def reserved(cart_id):
    return Inventory.objects.reservations_of(cart_id)


def user_cart(*items):
    cart = Cart.objects.create_cart(USER)
    for sku, qty in items:
        add(cart.id, sku, qty)
    return cart


def guest_cart(*items):
    cart = Cart.objects.create_cart()
    for sku, qty in items:
        add(cart.id, sku, qty)
    return cart


def test_without_an_account_cart_the_guest_cart_is_claimed():
    stock("A", 5)
    guest = guest_cart(("A", 2))
    with count_operations() as ops:
        result = merge_guest_cart(guest.id, USER, MAX)
    assert ops.total == 3, ops  # the account's cart, the claim (an update_one) and the cart read
    assert (result.cart_id, result.count, result.message()) == (guest.id, 2, "")
    assert cart_doc(guest.id)["user_id"] == USER and cart_doc(guest.id)["status"] == "active"


def test_without_a_guest_cart_the_account_cart_is_found():
    stock("A", 5)
    mine = user_cart(("A", 1))
    result = merge_guest_cart(None, USER, MAX)
    assert (result.cart_id, result.count) == (mine.id, 1)
    assert merge_guest_cart(None, "nobody", MAX).cart_id is None


def test_lines_are_combined_and_reservations_move_with_them():
    stock("A", 20)
    stock("B", 20)
    stock("C", 20)
    mine = user_cart(("A", 1), ("B", 2))
    guest = guest_cart(("B", 3), ("C", 4))
    result = merge_guest_cart(guest.id, USER, MAX)
    assert result.cart_id == mine.id and result.count == 1 + 5 + 4
    assert lines(mine.id) == {"A": 1, "B": 5, "C": 4}
    assert reserved(mine.id) == {"A": 1, "B": 5, "C": 4}
    assert reserved(guest.id) == {}
    assert cart_doc(guest.id)["status"] == "merged"
    assert (inventory("A")["qty"], inventory("B")["qty"], inventory("C")["qty"]) == (19, 15, 16)
    assert result.combined == [(DETAILS["title"], 3, 5)] and result.moved == [(DETAILS["title"], 4)]
    assert "3 added to the 2 already there" in result.message()
    assert_invariant()


def test_a_line_over_the_maximum_is_cut_and_the_surplus_goes_back_on_the_shelf():
    stock("A", 20)
    mine = user_cart(("A", 7))
    guest = guest_cart(("A", 6))
    assert inventory("A")["qty"] == 7
    result = merge_guest_cart(guest.id, USER, MAX)
    assert lines(mine.id) == {"A": 10} and reserved(mine.id) == {"A": 10}
    assert inventory("A")["qty"] == 10  # 3 units back
    assert result.cut == [(DETAILS["title"], 13, 10)] and "cut to 10" in result.message()
    assert result.count == 10
    assert_invariant()


def test_an_inactive_guest_cart_leaves_the_account_cart_alone():
    stock("A", 5)
    mine = user_cart(("A", 1))
    guest = guest_cart(("A", 1))
    Cart.expiry.expire_cart(guest.id)
    result = merge_guest_cart(guest.id, USER, MAX)
    assert (result.cart_id, result.count) == (mine.id, 1)
    assert lines(mine.id) == {"A": 1}
    assert_invariant()


@pytest.mark.parametrize("count", [1, 8])
def test_merge_round_trips_do_not_grow_with_the_lines(count):
    for number in range(count):
        stock(f"S{number}", 5)
    user_cart(*[(f"S{number}", 1) for number in range(count)])
    guest = guest_cart(*[(f"S{number}", 1) for number in range(count)])
    with count_operations() as ops:
        merge_guest_cart(guest.id, USER, MAX)
    # account cart, lock guest (an update_one and a read), write lines, read the SKUs, move
    # reservations, guest merged
    assert (ops.total, ops.writes) == (7, 4), ops
    assert_invariant()


def test_a_guest_line_without_reservation_is_dropped_not_sold():
    stock("A", 5)
    stock("B", 5)
    mine = user_cart(("A", 1))
    guest = guest_cart(("B", 2))
    # A crashed add: the guest cart has a line the inventory never reserved.
    Cart.objects.collection.update_one(
        {"_id": guest.id}, {"$push": {"items": {"sku": "A", "qty": 2, "details": DETAILS}}})
    result = merge_guest_cart(guest.id, USER, MAX)
    assert lines(mine.id) == {"A": 1, "B": 2} and reserved(mine.id) == {"A": 1, "B": 2}
    assert result.dropped == [DETAILS["title"]] or "could not be moved" in result.message()
    assert result.count == 3
    assert_invariant()


def test_a_change_in_flight_on_the_account_cart_restarts_the_merge(monkeypatch):
    stock("A", 20)
    mine = user_cart(("A", 1))
    guest = guest_cart(("A", 2))
    real = Cart.objects.replace_items
    calls = []

    def add_first(cart_id, expected, items):
        if not calls:
            calls.append(1)
            add(mine.id, "A", 1)  # the shopper's other tab adds meanwhile
        return real(cart_id, expected, items)

    monkeypatch.setattr(Cart.objects, "replace_items", add_first)
    result = merge_guest_cart(guest.id, USER, MAX)
    assert lines(mine.id) == {"A": 4} and reserved(mine.id) == {"A": 4}
    assert result.count == 4
    assert_invariant()


def test_a_reservation_changed_between_lines_and_move_is_undone(monkeypatch):
    stock("A", 20)
    mine = user_cart(("A", 1))
    guest = guest_cart(("A", 2))
    real = Inventory.objects.move_reservations

    def raise_first(source, target, moves):
        # Another tab raises the account's line in between (its 2 writes land).
        add(mine.id, "A", 1)
        return real(source, target, moves)

    monkeypatch.setattr(Inventory.objects, "move_reservations", raise_first)
    result = merge_guest_cart(guest.id, USER, MAX)
    assert result.dropped == [DETAILS["title"]]
    assert lines(mine.id) == reserved(mine.id) == {"A": 2}
    assert reserved(guest.id) == {} and inventory("A")["qty"] == 18
    assert_invariant()


def test_threads_racing_log_in_add_to_cart_and_checkout_on_the_last_units():
    """Log-in, an add to the guest cart and a checkout of the account cart, all at once.

    Whatever the interleaving: nothing oversold, every active cart's lines
    equal its reservations, the invariant holds.
    """
    for round_number in range(25):
        Inventory.objects.collection.delete_many({})
        Cart.objects.collection.delete_many({})
        stock("LAST", 3)
        mine = user_cart(("LAST", 1))
        guest = guest_cart(("LAST", 1))
        barrier = threading.Barrier(3)
        outcome = {}

        def login():
            barrier.wait()
            outcome["merge"] = merge_guest_cart(guest.id, USER, MAX)

        def add_to_guest():
            barrier.wait()
            try:
                add(guest.id, "LAST", 1)
            except InventoryError as error:
                outcome["add"] = error

        def checkout():
            barrier.wait()
            try:
                outcome["order"] = place_order(mine.id, StripeProvider(), card_token(), "Ada", "a@example.com")
            except (InventoryError, CheckoutError) as error:
                outcome["checkout"] = error

        threads = [threading.Thread(target=f) for f in (login, add_to_guest, checkout)]
        random.shuffle(threads)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert_invariant()
        sold = Order.objects.sold_by_sku().get("LAST", 0)
        in_carts = sum(e["qty"] for e in inventory("LAST")["carted"])
        assert inventory("LAST")["qty"] >= 0
        assert inventory("LAST")["qty"] + in_carts + sold == 3
        for cart in Cart.objects.collection.find({"status": "active"}):
            assert lines(cart["_id"]) == reserved(cart["_id"]), (round_number, outcome)
        Order.objects.collection.delete_many({})


def test_add_to_a_guest_cart_being_merged_is_refused():
    stock("A", 5)
    user_cart(("A", 1))
    guest = guest_cart(("A", 1))
    Cart.objects.lock_for_merge(guest.id, "x")
    with pytest.raises(CartInactive):
        add(guest.id, "A", 1)
    assert inventory("A")["qty"] == 3


def test_another_accounts_cart_is_never_taken():
    """A replayed session cookie naming someone else's cart: log-in takes nothing from it."""
    stock("A", 5)
    theirs = Cart.objects.create_cart("someone-else")
    add(theirs.id, "A", 2)
    result = merge_guest_cart(theirs.id, USER, MAX)
    assert result.cart_id is None and cart_doc(theirs.id)["user_id"] == "someone-else"
    mine = user_cart(("A", 1))
    result = merge_guest_cart(theirs.id, USER, MAX)
    assert result.cart_id == mine.id and lines(mine.id) == {"A": 1}
    assert lines(theirs.id) == {"A": 2} and cart_doc(theirs.id)["status"] == "active"
    assert_invariant()
