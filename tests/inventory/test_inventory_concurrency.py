"""Concurrency: threads racing for the same stock, forced interleavings of two shoppers or a
shopper and an operator, and failures injected between the two writes of an operation.

Every test runs over the wire on the test run's local server and, unchanged, on any MongoDB (MONGODB_URI).
"""

import random
import threading

import pytest

from inventory.exceptions import CartInactive, InadequateInventory, InventoryError
from inventory.models import Cart, ExpiryRun, Inventory
from orders.checkout import place_order
from orders.exceptions import CartChanged, CheckoutError
from orders.models import Order
from orders.payments import StripeProvider
from orders.reconcile import reconcile
from tests.support.payments import card_token, charges, refunded

from tests.support.inventory import (
    add,
    age_carts,
    age_reservations,
    assert_invariant,
    cart_doc,
    hook_inventory,
    inventory,
    stock,
)



def checkout(cart_id, provider=None):
    return place_order(cart_id, provider or StripeProvider(), card_token(), "Ada", "ada@example.com")


def run_threads(count, target):
    """Run ``target(index)`` in ``count`` threads started together; re-raise the first error."""
    barrier = threading.Barrier(count)
    errors = []

    def run(index):
        try:
            barrier.wait()
            target(index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def reserved_total(sku):
    return sum(e["qty"] for e in inventory(sku)["carted"])


# -- threads -----------------------------------------------------------

def test_sixteen_threads_reserve_exactly_the_stock_and_no_more():
    stock("HOT", 50)
    carts = [Cart.objects.create_cart().id for _ in range(16)]
    refused = [0] * 16

    def shop(index):
        for _ in range(10):  # 160 units asked for, 50 in stock
            try:
                add(carts[index], "HOT", 1)
            except InadequateInventory:
                refused[index] += 1

    run_threads(16, shop)
    in_carts = {}
    for cart_id in carts:
        line = next((l for l in cart_doc(cart_id)["items"] if l["sku"] == "HOT"), None)
        in_carts[cart_id] = line["qty"] if line else 0
    assert sum(in_carts.values()) == 50
    assert sum(refused) == 160 - 50
    assert inventory("HOT")["qty"] == 0
    assert {e["cart_id"]: e["qty"] for e in inventory("HOT")["carted"]} == {
        c: q for c, q in in_carts.items() if q
    }
    assert_invariant()


def test_mixed_add_change_remove_checkout_and_expire_keep_the_invariant():
    skus = ["M1", "M2", "M3"]
    for sku in skus:
        stock(sku, 30)
    stop = threading.Event()

    def shopper(index):
        generator = random.Random(index)
        cart_id = Cart.objects.create_cart().id
        for step in range(40):
            sku = generator.choice(skus)
            action = generator.random()
            try:
                if action < 0.5:
                    add(cart_id, sku, generator.randint(1, 3))
                elif action < 0.7:
                    Cart.objects.update_quantity(cart_id, sku, generator.randint(0, 4))
                elif action < 0.85:
                    Cart.objects.remove_item(cart_id, sku)
                elif action < 0.9:
                    checkout(cart_id)
                    cart_id = Cart.objects.create_cart().id
            except CartInactive:
                cart_id = Cart.objects.create_cart().id
            except (InventoryError, CheckoutError):
                pass

    def operator(index):
        while not stop.is_set():
            Cart.expiry.expire(0)
            Inventory.cleanup.cleanup(0)

    workers = [threading.Thread(target=operator, args=(0,))]
    errors = []

    def shopper_thread(index):
        try:
            shopper(index)
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    shoppers = [threading.Thread(target=shopper_thread, args=(i,)) for i in range(1, 9)]
    for thread in workers + shoppers:
        thread.start()
    for thread in shoppers:
        thread.join()
    stop.set()
    for thread in workers:
        thread.join()
    assert not errors, errors
    assert_invariant()
    for sku in skus:
        assert inventory(sku)["qty"] >= 0
    # Once every cart is expired and cleaned up, all unsold stock is back on the shelf.
    age_carts(10)
    Cart.expiry.expire(1)
    age_reservations(10)
    Inventory.cleanup.cleanup(1)
    sold = Order.objects.sold_by_sku()
    for sku in skus:
        assert inventory(sku)["carted"] == []
        assert inventory(sku)["qty"] + sold.get(sku, 0) == 30
    assert_invariant()


# -- forced interleavings ------------------------------------------------

def test_shopper_paused_between_cart_and_inventory_write_while_another_buys_the_last_unit(monkeypatch):
    stock("LAST", 1)
    slow, fast = Cart.objects.create_cart(), Cart.objects.create_cart()

    def other_shopper_buys():
        add(fast.id, "LAST", 1)
        checkout(fast.id)

    hook = hook_inventory(monkeypatch, "update_one", other_shopper_buys)
    with pytest.raises(InadequateInventory):
        add(slow.id, "LAST", 1)
    assert hook["p"].fired
    # The slow shopper's cart line was written, then rolled back.
    assert cart_doc(slow.id)["items"] == []
    assert cart_doc(fast.id)["status"] == "complete"
    assert inventory("LAST")["qty"] == 0 and inventory("LAST")["carted"] == []
    assert_invariant()


def test_a_cart_outliving_the_timeout_while_payment_is_taken_is_not_expired_and_is_sold():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)

    class SlowProvider(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            # While the bank answers, the cart outlives the timeout and expire_carts runs:
            # a pending cart's payment may be taken, so expiry leaves it alone.
            age_carts(120)
            assert Cart.expiry.expire(60) == {"expired": 0, "returned": 0}
            return super().confirm(intent_id, idempotency_key)

    before = refunded()
    order = checkout(cart.id, provider=SlowProvider())
    assert order.status == "paid" and refunded() == before
    assert cart_doc(cart.id)["status"] == "complete"
    assert inventory("A")["qty"] == 3 and inventory("A")["carted"] == []
    assert_invariant()


def test_checkout_while_expire_carts_is_half_done_is_refused(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    age_carts(120)
    taken = len(charges())
    real_finish = Cart.expiry._finish_expiring
    outcome = {}

    def finish_after_a_checkout(extra):
        # The cart is expired, its stock not back yet: the shopper clicks "Pay" now.
        try:
            checkout(cart.id)
        except CartInactive as error:
            outcome["error"] = error
        return real_finish(extra)

    monkeypatch.setattr(Cart.expiry, "_finish_expiring", finish_after_a_checkout)
    Cart.expiry.expire(60)
    assert isinstance(outcome.get("error"), CartInactive)
    assert len(charges()) == taken
    assert cart_doc(cart.id)["status"] == "expired"
    assert inventory("A")["qty"] == 5
    assert_invariant()


def test_cart_expiring_between_an_adds_two_writes_is_returned_by_cleanup(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()

    def expire_now():
        age_carts(120)
        Cart.expiry.expire(60)

    hook_inventory(monkeypatch, "update_one", expire_now)
    add(cart.id, "A", 2)  # the reservation lands after the cart expired
    assert cart_doc(cart.id)["status"] == "expired"
    assert inventory("A")["qty"] == 3
    assert_invariant()
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600)["returned"] == 1
    assert inventory("A")["qty"] == 5 and inventory("A")["carted"] == []


def test_cleanup_never_returns_a_reservation_made_again_after_it_read_the_cart(monkeypatch):
    """Cleanup reads a stale reservation and the cart while its removal is in flight (the line
    gone, the reservation not yet released). Before cleanup writes, the shopper finishes the
    removal, adds the SKU again with the same quantity and checks out; cleanup's write lands
    while the payment is taken. It must match only the entry it read: the new reservation is
    sold, and must not also go back on the shelf."""
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    age_reservations(7200)
    # The first write of remove_item: the line leaves the cart, the reservation stays (for now).
    Cart.objects.collection.update_one({"_id": cart.id}, {"$pull": {"items": {"sku": "A"}}})
    paused, resume = threading.Event(), threading.Event()
    reports = []

    def pause_before_write():
        paused.set()
        assert resume.wait(30)

    hook = hook_inventory(monkeypatch, "bulk_write", pause_before_write)
    cleaner = threading.Thread(target=lambda: reports.append(Inventory.cleanup.cleanup(3600)))
    cleaner.start()
    assert paused.wait(30)  # cleanup has read the entry and the cart (live, without the line)
    assert Inventory.objects.release(cart.id, "A", 2)
    add(cart.id, "A", 2)

    class CleanupWhilePaying(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            resume.set()  # the cart is pending, its new reservation checked: cleanup writes now
            cleaner.join(30)
            return super().confirm(intent_id, idempotency_key)

    checkout(cart.id, provider=CleanupWhilePaying())
    assert hook["p"].fired and not cleaner.is_alive()
    assert reports == [{"refreshed": 0, "sold": 0, "returned": 0}]
    assert cart_doc(cart.id)["status"] == "complete"
    assert inventory("A")["qty"] == 3 and inventory("A")["carted"] == []
    assert_invariant()


def test_add_in_flight_during_checkout_is_never_sold_unreserved(monkeypatch):
    """A line written but not yet reserved when checkout locks the cart: checkout refuses."""
    stock("A", 5)
    stock("B", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    outcome = {}

    def checkout_now():
        try:
            checkout(cart.id)
        except CartChanged as error:
            outcome["error"] = error

    hook_inventory(monkeypatch, "update_one", checkout_now)
    add(cart.id, "B", 1)
    assert isinstance(outcome.get("error"), CartChanged)
    assert cart_doc(cart.id)["status"] == "active"
    assert checkout(cart.id).status == "paid"
    assert_invariant()


# -- injected failures ---------------------------------------------------

class Crash(BaseException):
    """A process dying mid-operation: no except clause of the shop runs."""


def test_failure_between_an_adds_two_writes_leaves_a_line_checkout_refuses_and_remove_clears(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()

    def crash():
        raise RuntimeError("connection lost")

    hook_inventory(monkeypatch, "update_one", crash)
    with pytest.raises(RuntimeError):
        add(cart.id, "A", 2)
    monkeypatch.undo()
    assert inventory("A")["qty"] == 5  # nothing taken
    with pytest.raises(CartChanged):
        checkout(cart.id)  # the unreserved line is never sold
    assert Cart.objects.remove_item(cart.id, "A") == 0
    assert inventory("A")["qty"] == 5
    assert_invariant()


def test_failure_between_a_removes_two_writes_is_returned_by_cleanup(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)

    def crash():
        raise RuntimeError("connection lost")

    hook_inventory(monkeypatch, "update_one", crash)
    with pytest.raises(RuntimeError):
        Cart.objects.remove_item(cart.id, "A")
    monkeypatch.undo()
    assert cart_doc(cart.id)["items"] == []
    assert inventory("A")["qty"] == 3  # the reservation is stranded
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600)["returned"] == 1
    assert inventory("A")["qty"] == 5 and inventory("A")["carted"] == []
    assert_invariant()


def test_failure_while_expire_returns_stock_is_finished_by_cleanup_or_the_next_run(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    age_carts(120)

    def crash():
        raise RuntimeError("connection lost")

    hook_inventory(monkeypatch, "bulk_write", crash)
    with pytest.raises(RuntimeError):
        Cart.expiry.expire(60)
    monkeypatch.undo()
    # The cart is expired (no shopper can change it) and its run is recorded as unfinished.
    assert cart_doc(cart.id)["status"] == "expired"
    assert [run["_id"] for run in ExpiryRun.objects.unfinished()] == [cart_doc(cart.id)["expiry_run"]]
    assert inventory("A")["qty"] == 3
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600)["returned"] == 1
    assert Cart.expiry.expire(60) == {"expired": 1, "returned": 0}
    assert inventory("A")["qty"] == 5
    assert cart_doc(cart.id)["status"] == "expired"
    assert ExpiryRun.objects.unfinished() == []
    assert_invariant()


def test_crash_during_checkout_after_the_cart_became_pending_is_recovered_by_reconcile_then_expiry():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)

    class DyingProvider(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            raise Crash()

    with pytest.raises(Crash):
        checkout(cart.id, provider=DyingProvider())
    assert cart_doc(cart.id)["status"] == "pending"
    # cleanup_inventory keeps a pending cart's reservations (a payment may be under way) ...
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600)["returned"] == 0
    assert inventory("A")["qty"] == 3
    # ... and expire_carts never expires it while its payment is unknown ...
    age_carts(120)
    assert Cart.expiry.expire(60) == {"expired": 0, "returned": 0}
    # ... reconcile_payments finds no charge, voids the attempt and gives the cart back ...
    assert reconcile(StripeProvider(), older_than=0)["voided"] == 1
    assert cart_doc(cart.id)["status"] == "active"
    # ... and expire_carts then returns its stock once it is idle.
    age_carts(120)
    assert Cart.expiry.expire(60) == {"expired": 1, "returned": 1}
    assert inventory("A")["qty"] == 5 and inventory("A")["carted"] == []
    assert_invariant()


def test_crash_after_completing_before_the_pull_is_settled_by_cleanup(monkeypatch):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)

    def crash():
        raise RuntimeError("connection lost")

    monkeypatch.setattr(Inventory.objects, "release_sold", lambda cart_id: crash())
    assert checkout(cart.id).status == "paid"  # the order stands
    monkeypatch.undo()
    assert inventory("A")["carted"] != []
    assert_invariant()
    age_reservations(7200)
    assert Inventory.cleanup.cleanup(3600)["sold"] == 1
    assert inventory("A")["qty"] == 3 and inventory("A")["carted"] == []
    assert_invariant()
