"""The "Inventory Management" use case's cart and inventory operations on the managers: results, refusals, rollbacks,
operation counts, and the sources' bugs not copied."""

import pytest

from inventory.exceptions import (
    CartInactive,
    InadequateInventory,
    LineLimit,
    NotInCart,
    StockError,
    UnknownSku,
)
from inventory.invariant import check_invariant
from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.exceptions import CartChanged, EmptyCart
from orders.models import Order
from orders.payments import PaymentDeclined, StripeProvider
from core.mongo.counter import count_operations

from tests.support.payments import DECLINED, card_token, charges
from tests.support.inventory import (
    DETAILS,
    add,
    age_carts,
    age_reservations,
    assert_invariant,
    cart_doc,
    inventory,
    stock,
)



def lines(cart_id):
    return {line["sku"]: line["qty"] for line in cart_doc(cart_id)["items"]}


def reservations(sku):
    return {e["cart_id"]: e["qty"] for e in inventory(sku)["carted"]}


def checkout(cart_id, card=card_token(), provider=None):
    return place_order(cart_id, provider or StripeProvider(), card, "Ada", "ada@example.com")


# -- add ---------------------------------------------------------------

def test_add_reserves_stock_and_records_the_line():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    assert add(cart.id, "A", 2) == 2
    assert lines(cart.id) == {"A": 2}
    assert inventory("A")["qty"] == 3
    assert reservations("A") == {cart.id: 2}
    assert cart_doc(cart.id)["items"][0]["details"] == DETAILS
    assert_invariant()


def test_add_of_a_sku_already_in_the_cart_raises_its_line_not_a_second_line():
    """The source's bug: add_item_to_cart pushed a second line for the same SKU."""
    stock("A", 5)
    stock("B", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "B", 1)
    add(cart.id, "A", 2)
    assert add(cart.id, "A", 1) == 4
    assert cart_doc(cart.id)["items"] == [
        {"sku": "B", "qty": 1, "details": DETAILS}, {"sku": "A", "qty": 3, "details": DETAILS}
    ]
    assert reservations("A") == {cart.id: 3}
    assert inventory("A")["qty"] == 2
    assert_invariant()


def test_add_more_than_available_is_refused_and_rolled_back():
    stock("A", 2)
    cart = Cart.objects.create_cart()
    with pytest.raises(InadequateInventory) as refused:
        add(cart.id, "A", 3)
    assert refused.value.available == 2
    assert lines(cart.id) == {}
    assert inventory("A")["qty"] == 2 and inventory("A")["carted"] == []


def test_raising_a_line_beyond_the_stock_rolls_the_line_back():
    stock("A", 3)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    with pytest.raises(InadequateInventory):
        add(cart.id, "A", 2)
    assert lines(cart.id) == {"A": 2}
    assert reservations("A") == {cart.id: 2}
    assert_invariant()


def test_a_line_cannot_grow_beyond_the_maximum():
    stock("A", 50)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 8)
    with pytest.raises(LineLimit):
        add(cart.id, "A", 3)
    assert lines(cart.id) == {"A": 8}
    assert inventory("A")["qty"] == 42


def test_add_of_an_unknown_sku_is_refused_and_rolled_back():
    cart = Cart.objects.create_cart()
    with pytest.raises(UnknownSku):
        add(cart.id, "NOPE", 1)
    assert lines(cart.id) == {}


@pytest.mark.parametrize("status", ["pending", "complete", "expiring", "expired"])
def test_add_to_a_cart_that_is_not_active_is_refused(status):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"status": status}})
    with pytest.raises(CartInactive):
        add(cart.id, "A", 1)
    assert lines(cart.id) == {}
    assert inventory("A")["qty"] == 5


def test_add_to_a_cart_that_does_not_exist_is_refused():
    stock("A", 5)
    with pytest.raises(CartInactive):
        add("no-such-cart", "A", 1)
    assert inventory("A")["qty"] == 5


def test_adding_a_new_line_costs_two_writes_and_a_read():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    with count_operations() as ops:
        add(cart.id, "A", 1)
    # The cart line, the reservation, and the cart's units read afterwards (an update_one and a
    # read: no findAndModify, which SecantusDB answers by reading the whole collection).
    assert (ops.writes, ops.total) == (2, 3), ops


def test_a_refused_add_costs_three_writes_with_the_rollback():
    stock("A", 1)
    cart = Cart.objects.create_cart()
    with count_operations() as ops:
        with pytest.raises(InadequateInventory):
            add(cart.id, "A", 2)
    # Cart write, inventory write, rollback; one read of the SKU's reservations finds no
    # abandoned cart to reclaim (tests/inventory/test_cart_reclaim.py), one read finds out why.
    assert ops.writes == 3, ops
    assert ops.reads == 2, ops


# -- update quantity / remove ------------------------------------------

def test_update_quantity_up_and_down_moves_the_difference():
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    assert Cart.objects.update_quantity(cart.id, "A", 5) == 5
    assert (inventory("A")["qty"], reservations("A")) == (5, {cart.id: 5})
    assert Cart.objects.update_quantity(cart.id, "A", 1) == 1
    assert (inventory("A")["qty"], reservations("A")) == (9, {cart.id: 1})
    assert lines(cart.id) == {"A": 1}
    assert_invariant()


def test_update_quantity_refreshes_the_reservation_timestamp_not_a_top_level_one():
    """The source's bug: update_quantity set a top-level ``timestamp``."""
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    age_reservations(3600)
    old = inventory("A")["carted"][0]["timestamp"]
    Cart.objects.update_quantity(cart.id, "A", 2)
    document = inventory("A")
    assert "timestamp" not in document
    assert document["carted"][0]["timestamp"] > old


def test_update_quantity_beyond_the_stock_is_rolled_back():
    stock("A", 4)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    with pytest.raises(InadequateInventory):
        Cart.objects.update_quantity(cart.id, "A", 7)
    assert lines(cart.id) == {"A": 2}
    assert (inventory("A")["qty"], reservations("A")) == (2, {cart.id: 2})


def test_update_quantity_costs_two_writes_and_three_with_the_rollback():
    stock("A", 4)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    with count_operations() as ops:
        Cart.objects.update_quantity(cart.id, "A", 3)
    assert ops.writes == 2, ops
    with count_operations() as ops:
        with pytest.raises(InadequateInventory):
            Cart.objects.update_quantity(cart.id, "A", 9)
    assert ops.writes == 3, ops


def test_update_quantity_to_zero_removes_the_line():
    stock("A", 4)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    assert Cart.objects.update_quantity(cart.id, "A", 0) == 0
    assert lines(cart.id) == {}
    assert (inventory("A")["qty"], reservations("A")) == (4, {})


def test_remove_returns_the_reservation():
    stock("A", 4)
    stock("B", 4)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    add(cart.id, "B", 1)
    assert Cart.objects.remove_item(cart.id, "A") == 1
    assert lines(cart.id) == {"B": 1}
    assert (inventory("A")["qty"], reservations("A")) == (4, {})
    assert_invariant()


def test_changing_a_line_that_is_not_in_the_cart_is_refused():
    stock("A", 4)
    cart = Cart.objects.create_cart()
    with pytest.raises(NotInCart):
        Cart.objects.update_quantity(cart.id, "A", 2)
    with pytest.raises(NotInCart):
        Cart.objects.remove_item(cart.id, "A")
    assert inventory("A")["qty"] == 4


def test_changing_an_inactive_cart_is_refused():
    stock("A", 4)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"status": "expired"}})
    with pytest.raises(CartInactive):
        Cart.objects.update_quantity(cart.id, "A", 3)
    with pytest.raises(CartInactive):
        Cart.objects.remove_item(cart.id, "A")
    assert lines(cart.id) == {"A": 2}
    assert inventory("A")["qty"] == 2


# -- checkout ----------------------------------------------------------

def test_checkout_completes_the_cart_and_releases_its_reservations():
    stock("A", 5)
    stock("B", 5)
    other = Cart.objects.create_cart()
    add(other.id, "A", 1)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    add(cart.id, "B", 1)
    order = checkout(cart.id)
    assert order.status == "paid" and order.subtotal == 3 * DETAILS["price"]
    assert order.payment.reference in charges()
    assert cart_doc(cart.id)["status"] == "complete"
    # The source's bug: it pulled {'cart_id': id}; only this cart's entries go.
    assert reservations("A") == {other.id: 1}
    assert reservations("B") == {}
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (2, 4)
    assert_invariant()


def test_checkout_sends_order_placed_once():
    from orders.signals import order_placed as order_completed

    received = []

    def receiver(**kwargs):
        received.append(kwargs)

    order_completed.connect(receiver)
    try:
        stock("A", 5)
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 2)
        checkout(cart.id)
        with pytest.raises(CartInactive):
            checkout(cart.id)
    finally:
        order_completed.disconnect(receiver)
    assert len(received) == 1
    assert received[0]["cart_id"] == cart.id and received[0]["order"].cart_id == cart.id
    assert received[0]["lines"] == [{"sku": "A", "qty": 2, "price": DETAILS["price"], "discount": 0}]
    assert received[0]["customer"] == "ada@example.com"
    assert received[0]["completed_at"].tzinfo is not None


def test_a_failing_signal_receiver_does_not_undo_the_order():
    from orders.signals import order_placed as order_completed

    def broken(**kwargs):
        raise RuntimeError("analytics down")

    order_completed.connect(broken)
    try:
        stock("A", 5)
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 1)
        assert checkout(cart.id).status == "paid"
    finally:
        order_completed.disconnect(broken)


def test_a_declined_payment_leaves_the_cart_active_with_its_reservations():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    with pytest.raises(PaymentDeclined):
        checkout(cart.id, card=card_token(DECLINED))
    assert cart_doc(cart.id)["status"] == "active"
    assert reservations("A") == {cart.id: 2}
    assert inventory("A")["qty"] == 3
    assert checkout(cart.id).status == "paid"


def test_checkout_of_an_empty_cart_is_refused():
    cart = Cart.objects.create_cart()
    with pytest.raises(EmptyCart):
        checkout(cart.id)
    assert cart_doc(cart.id)["status"] == "active"


def test_checkout_of_an_inactive_cart_is_refused_and_charges_nothing():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"status": "expired"}})
    taken = len(charges())
    with pytest.raises(CartInactive):
        checkout(cart.id)
    assert len(charges()) == taken


@pytest.mark.parametrize("count", [1, 6])
def test_checkout_round_trips_do_not_grow_with_the_lines(count, monkeypatch):
    from orders.signals import order_placed as order_completed

    # Count the checkout's own round trips, not those of other apps' receivers.
    monkeypatch.setattr(order_completed, "send_robust", lambda sender, **kwargs: [])
    for number in range(count):
        stock(f"S{number}", 5)
    cart = Cart.objects.create_cart()
    for number in range(count):
        add(cart.id, f"S{number}", 1)
    Order.objects.next_number()  # the counter exists, as after a shop's first order
    from promotions.models import Offer

    Offer.objects.active()  # the live offers cached, as after the process's first cart (60 s)
    from shipping.models import ShippingZone

    ShippingZone.objects.table()  # the shipping zones cached likewise (60 s)
    with count_operations() as ops:
        checkout(cart.id)
    # Lock (and read the cart), compare with the reservations, the products' prices and
    # weights, record the payment attempt, record its PaymentIntent (before confirming it), mark
    # it charged (and read it), the order number, the order, complete, pull, mark the attempt
    # completed (and read it): whatever the number of lines. Each conditional write is an
    # update_one and a read, never a findAndModify (SecantusDB answers one by reading the whole
    # collection); the order number's counter keeps its findAndModify.
    assert (ops.total, ops.writes) == (14, 9), ops


# -- expire and cleanup ------------------------------------------------

def test_expire_returns_the_stock_of_old_carts_only():
    stock("A", 10)
    old = Cart.objects.create_cart()
    add(old.id, "A", 3)
    age_carts(120)
    fresh = Cart.objects.create_cart()
    add(fresh.id, "A", 2)
    report = Cart.expiry.expire(60)
    assert report == {"expired": 1, "returned": 1}
    assert cart_doc(old.id)["status"] == "expired"
    assert cart_doc(fresh.id)["status"] == "active"
    assert (inventory("A")["qty"], reservations("A")) == (8, {fresh.id: 2})
    # Run twice: nothing more changes.
    assert Cart.expiry.expire(60) == {"expired": 0, "returned": 0}
    assert inventory("A")["qty"] == 8
    assert_invariant()


def test_expire_finds_carts_by_id_and_returns_every_line():
    """The source's bug: expire_carts read ``cart['id']``; the field is ``_id``."""
    stock("A", 10)
    stock("B", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 3)
    add(cart.id, "B", 4)
    age_carts(120)
    Cart.expiry.expire(60)
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (10, 10)
    assert reservations("A") == reservations("B") == {}


def test_expire_cart_now_for_staff():
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 3)
    assert Cart.expiry.expire_cart(cart.id) is True
    assert cart_doc(cart.id)["status"] == "expired"
    assert inventory("A")["qty"] == 10
    assert Cart.expiry.expire_cart(cart.id) is False
    assert inventory("A")["qty"] == 10


def test_cleanup_refreshes_live_carts_and_returns_the_others():
    stock("A", 10)
    live = Cart.objects.create_cart()
    add(live.id, "A", 1)
    gone = Cart.objects.create_cart()
    add(gone.id, "A", 2)
    expired = Cart.objects.create_cart()
    add(expired.id, "A", 3)
    Cart.objects.collection.delete_one({"_id": gone.id})
    Cart.objects.collection.update_one({"_id": expired.id}, {"$set": {"status": "expired"}})
    age_reservations(7200)
    report = Inventory.cleanup.cleanup(3600)
    assert report == {"refreshed": 1, "sold": 0, "returned": 2}
    assert (inventory("A")["qty"], reservations("A")) == (9, {live.id: 1})
    assert Inventory.cleanup.cleanup(3600) == {"refreshed": 0, "sold": 0, "returned": 0}
    assert inventory("A")["qty"] == 9


def test_cleanup_leaves_fresh_reservations_alone():
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"status": "expired"}})
    assert Inventory.cleanup.cleanup(3600) == {"refreshed": 0, "sold": 0, "returned": 0}
    assert inventory("A")["qty"] == 9


def test_cleanup_drops_reservations_of_complete_carts_without_returning_them(monkeypatch):
    """Checkout crashed after completing the cart, before pulling its reservations: they are sold."""
    stock("A", 10)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 4)

    def crash(cart_id):
        raise RuntimeError("connection lost")

    monkeypatch.setattr(Inventory.objects, "release_sold", crash)
    checkout(cart.id)
    monkeypatch.undo()
    assert reservations("A") == {cart.id: 4}
    assert_invariant()  # sold units are not counted twice
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600) == {"refreshed": 0, "sold": 1, "returned": 0}
    assert (inventory("A")["qty"], reservations("A")) == (6, {})
    assert_invariant()


# -- stock for staff and operators ---------------------------------------

def test_ensure_stock_never_overwrites():
    assert Inventory.objects.ensure_stock(["A", "B"], 5) == 2
    Inventory.objects.collection.update_one({"_id": "A"}, {"$set": {"qty": 1}})
    assert Inventory.objects.ensure_stock(["A", "B", "C"], 7) == 1
    assert (inventory("A")["qty"], inventory("B")["qty"], inventory("C")["qty"]) == (1, 5, 7)


def test_ensure_stock_leaves_a_document_created_after_its_read(monkeypatch):
    """Another process creates "A" between ensure_stock's read and its insert: the insert of
    "A" fails as a duplicate, "A" keeps its units, "B" is created, and 1 is reported."""
    collection = Inventory.objects.collection
    read = collection.find

    def read_then_race(*args, **kwargs):
        found = list(read(*args, **kwargs))
        collection.insert_one({"_id": "A", "qty": 3, "stocked": 3, "carted": []})
        return found

    monkeypatch.setattr(type(collection), "find", lambda self, *a, **k: read_then_race(*a, **k))
    assert Inventory.objects.ensure_stock(["A", "B"], 5) == 1
    monkeypatch.undo()
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (3, 5)


def test_ensure_stock_is_two_round_trips_for_a_batch():
    with count_operations() as ops:
        assert Inventory.objects.ensure_stock([f"S-{n}" for n in range(50)], 5) == 50
    assert ops.total == 2


def test_restock_adjust_and_set_stock_keep_the_invariant():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    assert Inventory.objects.restock("A", 4) == 7
    assert Inventory.objects.adjust_stock("A", -3) == 4
    assert Inventory.objects.set_stock("A", 10) == 10
    assert reservations("A") == {cart.id: 2}
    assert_invariant()


def test_stock_never_goes_below_zero():
    stock("A", 2)
    with pytest.raises(StockError):
        Inventory.objects.adjust_stock("A", -3)
    with pytest.raises(StockError):
        Inventory.objects.set_stock("A", -1)
    with pytest.raises(StockError):
        Inventory.objects.restock("A", 0)
    with pytest.raises(StockError):
        Inventory.objects.adjust_stock("NOPE", 1)
    assert inventory("A")["qty"] == 2


def test_check_invariant_reports_a_broken_sku():
    stock("A", 5)
    stock("B", 5)
    Inventory.objects.collection.update_one({"_id": "B"}, {"$inc": {"qty": 1}})
    problems = check_invariant(Order.objects.sold_by_sku)
    assert [sku for sku, _ in problems] == ["B"]
    assert "6" in problems[0][1]


def test_cart_changed_refusal_unlocks():
    """A line without its reservation (checked before charging) refuses checkout and unlocks."""
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {"items.0.qty": 2}})
    with pytest.raises(CartChanged):
        checkout(cart.id)
    assert cart_doc(cart.id)["status"] == "active"


def test_eight_threads_restocking_a_new_sku_each_get_a_quantity_and_all_units_count():
    """Eight restocks race to create one missing inventory document (SecantusDB answered
    None to the losers of that upsert; ``restock`` reads the quantity back instead)."""
    import threading

    for attempt in range(5):
        sku = f"NEW-{attempt}"
        barrier = threading.Barrier(8)
        answers, errors = [], []

        def run():
            barrier.wait()
            try:
                answers.append(Inventory.objects.restock(sku, 1))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=run) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        assert all(1 <= qty <= 8 for qty in answers) and len(answers) == 8
        assert Inventory.objects.available(sku) == 8
