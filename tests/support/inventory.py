"""Helpers for the inventory tests: stock, aging, interleaving hooks, the invariant."""

import datetime

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
    assert check_invariant(Order.objects.sold_by_sku) == []


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
    """Make the next ``method`` call on the inventory collection (through ``Inventory.objects``,
    which the cart manager asks to reserve, change and release) run ``hook`` first; returns the proxy."""
    from inventory.managers import InventoryManager

    real = InventoryManager.collection
    proxy = {}

    def patched(manager):
        collection = real.fget(manager)
        if "p" not in proxy:
            proxy["p"] = Hooked(collection, method, hook)
            return proxy["p"]
        return proxy["p"] if not proxy["p"].fired else collection

    monkeypatch.setattr(InventoryManager, "collection", property(patched))
    return proxy
