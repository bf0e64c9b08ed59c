"""Writes whose retry matters stay right when the connection drops during them.

On the local server the shop connects with ``retryWrites=false`` (SecantusDB
0.7.0b3 slows every write down to about 20 ms once it holds 10,000 retryable-write
records: docs/local-server.md), so pymongo does not retry a write whose
connection dropped: it raises ``AutoReconnect``, and the write may or may not
have been applied. The shop's own retry (``core.mongo.writes.write_once``)
reads whether this very write landed and runs it again only when it did not.

The failure is injected: the managers' collections are wrapped so that a write
either reaches the server and then loses its reply ("after": applied, the
caller cannot know) or never leaves ("before": not applied), raising pymongo's
own ``AutoReconnect`` as a reset connection does.
"""

import pymongo
import pytest
from django.db import connections
from pymongo.errors import AutoReconnect

from inventory.managers import CartManager, InventoryManager
from inventory.models import Cart
from orders import fulfilment
from orders.checkout import place_order
from orders.managers.ledger import COMPLETED, PaymentAttemptManager
from orders.managers import OrderManager
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from core.mongo.serverprocess import uri_for

from tests.support.inventory import add, assert_invariant, cart_doc, inventory, stock
from tests.support.payments import charges
from tests.support.payments import card_token

WRITES = ("insert_one", "update_one", "update_many", "bulk_write")


class Dropping:
    """A collection whose writes lose their connection: ``when`` "after" applies each write and
    then raises (every time: only a write the shop recognises as applied gets through);
    "before" raises once per write method, before anything is sent."""

    def __init__(self, collection, when, log):
        self._collection, self._when, self._log = collection, when, log

    def __getattr__(self, name):
        attr = getattr(self._collection, name)
        if name not in WRITES:
            return attr

        def call(*args, **kwargs):
            if self._when == "before" and (self._collection.name, name) not in self._log:
                self._log.append((self._collection.name, name))
                raise AutoReconnect("connection reset (injected, before the write)")
            result = attr(*args, **kwargs)
            if self._when == "after":
                self._log.append((self._collection.name, name))
                raise AutoReconnect("connection reset (injected, reply lost)")
            return result

        return call


def drop_writes(monkeypatch, managers, when):
    """Wrap the ``collection`` of each manager class of ``managers``; returns the log of drops."""
    log = []
    for manager in managers:
        real = manager.collection

        def patched(self, real=real):
            return Dropping(real.fget(self), when, log)

        monkeypatch.setattr(manager, "collection", property(patched))
    return log


def test_the_local_server_uri_turns_retryable_writes_off():
    client = pymongo.MongoClient(uri_for(27999), connect=False)
    try:
        assert client.options.retry_writes is False
    finally:
        client.close()


def test_a_mongodb_uri_keeps_its_owners_choice():
    from core.mongo.base import DatabaseWrapper

    for uri, expected in (("mongodb://db.example:27017/", True),
                          ("mongodb://db.example:27017/?retryWrites=false", False)):
        wrapper = DatabaseWrapper({**connections["default"].settings_dict, "HOST": uri}, alias="other")
        params = wrapper.get_connection_params()
        client = pymongo.MongoClient(**params, connect=False)
        try:
            assert client.options.retry_writes is expected
        finally:
            client.close()


@pytest.mark.parametrize("when", ["after", "before"])
def test_checkout_with_every_write_dropped_places_one_order_with_one_charge(monkeypatch, when):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    log = drop_writes(monkeypatch, [CartManager, PaymentAttemptManager, OrderManager], when)
    order = place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com")
    monkeypatch.undo()
    # The cart lock, the attempt's record and moves, the order, the cart's completion.
    assert {"carts", "payment_attempts", "orders"} <= {name for name, _ in log}, log
    assert [amount for amount, reference in charges().values() if reference == cart.id] == [order.total]
    assert cart_doc(cart.id)["status"] == "complete"
    assert PaymentAttempt.objects.collection.find_one({"cart_id": cart.id})["status"] == COMPLETED
    assert Order.objects.collection.count_documents({"cart_id": cart.id}) == 1
    assert inventory("A")["qty"] == 3 and inventory("A")["carted"] == []
    assert_invariant()


@pytest.mark.parametrize("when", ["after", "before"])
def test_reservations_with_their_writes_dropped_move_each_unit_once(monkeypatch, when):
    stock("A", 10)
    cart = Cart.objects.create_cart()
    log = drop_writes(monkeypatch, [InventoryManager], when)
    assert add(cart.id, "A", 2) == 2  # reserve
    assert Cart.objects.update_quantity(cart.id, "A", 5) == 5  # change_reservation
    assert add(cart.id, "A", 1) == 6  # change_reservation again
    monkeypatch.undo()
    assert [(entry["cart_id"], entry["qty"]) for entry in inventory("A")["carted"]] == [(cart.id, 6)]
    assert inventory("A")["qty"] == 4
    log.clear()
    drop_writes(monkeypatch, [InventoryManager], when)
    assert Cart.objects.remove_item(cart.id, "A") == 0  # release
    monkeypatch.undo()
    assert (inventory("A")["qty"], inventory("A")["carted"]) == (10, [])
    assert_invariant()


@pytest.mark.parametrize("when", ["after", "before"])
def test_order_status_changes_with_their_writes_dropped_happen_once(monkeypatch, when):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    order = place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com")
    drop_writes(monkeypatch, [OrderManager], when)
    fulfilment.cancel(order.number, provider=StripeProvider())
    monkeypatch.undo()
    placed = Order.objects.collection.find_one({"number": order.number})
    assert [entry["status"] for entry in placed["history"]] == ["placed", "paid", "cancelled", "refunded"]
    assert placed["restocked"] is True
    assert inventory("A")["qty"] == 5
    assert_invariant()
