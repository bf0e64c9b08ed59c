"""Helpers for the inventory tests: stock, aging, interleaving hooks, the invariant."""

import datetime
import threading

from inventory.invariant import check_invariant
from inventory.models import Cart, Inventory
from orders.models import Order

DETAILS = {"title": "Test album", "price": 999}
MAX_QTY = 10


def stock(sku, qty):
    """Give ``sku`` an inventory document with ``qty`` units."""
    Inventory.objects.ensure_stock([sku], qty)


def inventory(sku):
    """The raw inventory document of ``sku``."""
    return Inventory.objects.collection.find_one({"_id": sku})


def cart_doc(cart_id):
    """The raw cart document."""
    return Cart.objects.collection.find_one({"_id": cart_id})


def add(cart_id, sku, qty=1):
    return Cart.objects.add_item(cart_id, sku, qty, DETAILS, MAX_QTY)


def age_carts(seconds):
    """Move every cart's ``last_modified`` ``seconds`` into the past."""
    for document in Cart.objects.collection.find({}, {"last_modified": 1}):
        Cart.objects.collection.update_one(
            {"_id": document["_id"]},
            {"$set": {"last_modified": document["last_modified"] - datetime.timedelta(seconds=seconds)}},
        )


def age_reservations(seconds):
    """Move every reservation's ``timestamp`` ``seconds`` into the past."""
    for document in Inventory.objects.collection.find({}, {"carted": 1}):
        carted = [
            {**e, "timestamp": e["timestamp"] - datetime.timedelta(seconds=seconds)}
            for e in document.get("carted", [])
        ]
        Inventory.objects.collection.update_one({"_id": document["_id"]}, {"$set": {"carted": carted}})


def assert_invariant():
    problems = check_invariant(Order.objects.sold_by_sku)
    assert problems == [], problems


class Hooked:
    """A collection proxy that runs ``hook()`` once, just before the first call of ``method``.

    Forces an interleaving: the code under test is "paused" right before that
    write while ``hook`` plays another shopper or an operator.
    """

    def __init__(self, collection, method, hook):
        self._collection, self._method, self._hook = collection, method, hook
        self.fired = False

    def __getattr__(self, name):
        attr = getattr(self._collection, name)
        if name != self._method or self.fired:
            return attr

        def call(*args, **kwargs):
            self.fired = True
            self._hook()
            return attr(*args, **kwargs)

        return call


def hook_inventory(monkeypatch, method, hook):
    """Make the next ``method`` call on the inventory collection (through any of its managers:
    ``Inventory.objects``, which the cart manager asks to reserve, change and release,
    ``Inventory.returns`` and ``Inventory.cleanup``) run ``hook`` first; returns the proxy."""
    from inventory.managers import InventoryManager, ReservationCleanupManager, ReservationReturnManager

    real = InventoryManager.collection
    proxy = {}

    def patched(manager):
        collection = real.fget(manager)
        if "p" not in proxy:
            proxy["p"] = Hooked(collection, method, hook)
            return proxy["p"]
        return proxy["p"] if not proxy["p"].fired else collection

    for manager_class in (InventoryManager, ReservationCleanupManager, ReservationReturnManager):
        monkeypatch.setattr(manager_class, "collection", property(patched))
    return proxy


def fill_carts(carts, skus, qty=1):
    """``carts`` active carts, each holding ``qty`` of every SKU of ``skus``; their ids."""
    ids = []
    for _ in range(carts):
        cart = Cart.objects.create_cart()
        for sku in skus:
            add(cart.id, sku, qty)
        ids.append(cart.id)
    return ids


def expire_beside_shoppers(skus, shoppers, runs, timeout=60):
    """Start ``shoppers`` threads, each filling a fresh cart with 2 of every SKU of ``skus`` (add 2,
    change to 1, add 1), and ``runs`` threads calling ``Cart.expiry.expire(timeout)``, all at
    once. Returns ``(errors, reports)``: what any thread raised, and each run's report."""
    errors, reports = [], []
    barrier = threading.Barrier(shoppers + runs)

    def shop():
        try:
            barrier.wait()
            cart = Cart.objects.create_cart()
            for sku in skus:
                add(cart.id, sku, 2)
                Cart.objects.update_quantity(cart.id, sku, 1)
                add(cart.id, sku, 1)
        except BaseException as error:  # noqa: BLE001 - reported to the caller
            errors.append(error)

    def expire():
        try:
            barrier.wait()
            reports.append(Cart.expiry.expire(timeout))
        except BaseException as error:  # noqa: BLE001 - reported to the caller
            errors.append(error)

    threads = [threading.Thread(target=shop) for _ in range(shoppers)] + [
        threading.Thread(target=expire) for _ in range(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors, reports


def assert_shoppers_kept_their_units(old_carts, skus, shoppers, stocked):
    """After ``expire_beside_shoppers``: every cart of ``old_carts`` expired with its units back,
    and each SKU holds exactly the shoppers' reservations (2 units each) out of ``stocked``."""
    assert all(cart_doc(c)["status"] == "expired" for c in old_carts)
    for sku in skus:
        carted = inventory(sku)["carted"]
        assert not {e["cart_id"] for e in carted} & set(old_carts)
        assert sorted(e["qty"] for e in carted) == [2] * shoppers
        assert inventory(sku)["qty"] == stocked - 2 * shoppers
    assert_invariant()
