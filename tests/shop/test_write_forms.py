"""No shop write path sends ``findAndModify`` to a collection that grows.

Why: the local SecantusDB server (0.7.0b3) re-checks the document a
``findAndModify`` matched with the filter ``{_id: ..., $and: [query]}``, and a
filter with a top-level ``$`` operator uses no index: every
``find_one_and_update`` reads the whole collection (1.5 ms at 1 document,
129 ms at 10,000; ``update_one`` by ``_id`` stays about 1.3 ms). ``carts``,
``inventory``, ``orders`` and ``payment_attempts`` grow with the trade, so a
write there in that form would cost more every day. The shop writes them with
``update_one`` by ``_id`` (plus a read, or a compare-and-set), forms every
MongoDB evaluates identically (docs/local-server.md).

Allowed: ``counters`` (the order number's ``$inc``). It holds a handful of
documents and never grows, so its ``findAndModify`` costs the same on day 300
as on day 1, and it is the simplest atomic increment that hands back the value.

The commands are seen by the shop's pymongo command listener
(``core.mongo.counter.CommandCounter``, a ``pymongo.monitoring.CommandListener``
registered on the client by the backend), through ``count_operations``.
"""

import re
from pathlib import Path

import pytest

from inventory.merge import merge_guest_cart
from inventory.models import Cart, Inventory
from orders import fulfilment
from orders.checkout import place_order
from orders.managers.ledger import new_key
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from core.mongo.counter import count_operations

from tests.support.inventory import add, assert_invariant, stock
from tests.support.payments import card_token

#: Collections that stay small whatever the trade: findAndModify may go there.
SMALL_COLLECTIONS = {"counters"}
ROOT = Path(__file__).resolve().parents[2]


def find_and_modify_targets(ops):
    return {collection for collection, operation in ops.operations if operation == "findAndModify"}


def test_no_shop_write_path_sends_find_and_modify_to_a_growing_collection():
    with count_operations() as ops:
        stock("A", 20)
        stock("B", 20)
        Inventory.objects.restock("A", 5)
        Inventory.objects.restock("NEW", 3)  # upserted
        Inventory.objects.adjust_stock("A", -1)
        Inventory.objects.set_stock("B", 20)

        # Cart add (a new line and an existing one), change, remove.
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 1)
        add(cart.id, "A", 1)
        add(cart.id, "B", 2)
        Cart.objects.update_quantity(cart.id, "B", 3)
        Cart.objects.remove_item(cart.id, "B")

        # The merge at log-in: a claim, then a merge.
        merge_guest_cart(cart.id, "account-1", 10)
        guest = Cart.objects.create_cart()
        add(guest.id, "B", 1)
        result = merge_guest_cart(guest.id, "account-1", 10)

        # Checkout, then the order's status changes, cancellation and refund.
        order = place_order(result.cart_id, StripeProvider(), card_token(), "Ada", "ada@example.com")
        fulfilment.cancel(order.number, provider=StripeProvider())
        second = Cart.objects.create_cart()
        add(second.id, "A", 1)
        shipped = place_order(second.id, StripeProvider(), card_token(), "Ada", "ada@example.com")
        fulfilment.mark_shipped(shipped.number)
        fulfilment.mark_delivered(shipped.number)

        # Payment recovery's lease and fence.
        key = new_key()
        PaymentAttempt.objects.begin(key, "cart-x", 100, {})
        assert PaymentAttempt.objects.claim(key, 60) is not None
        PaymentAttempt.objects.release_claim(key)
        PaymentAttempt.objects.void(key, "cart-x", "test")

    assert Order.objects.get_by_number(shipped.number).status == Order.DELIVERED
    assert Order.objects.get_by_number(order.number).status == Order.REFUNDED
    assert_invariant()
    assert find_and_modify_targets(ops) <= SMALL_COLLECTIONS, ops.operations
    assert ("counters", "findAndModify") in ops.operations  # the one allowed, seen


# The shop's own code, not tests, benchmarks or the virtualenv.
SOURCE_DIRS = ("accounts", "analytics", "api", "catalog", "inventory", "orders", "shop")
FORMS = re.compile(r"(\w+)\.(find_one_and_(?:update|replace|delete))\(")


@pytest.mark.parametrize("directory", SOURCE_DIRS)
def test_the_only_find_one_and_call_in_the_source_is_the_order_counter(directory):
    """A new ``find_one_and_*`` call anywhere in the shop's code fails here, whether or not a
    test runs it: it must go to a collection that never grows, and be listed below."""
    allowed = {("orders/managers/orders.py", "counters.find_one_and_update")}
    found = set()
    for path in sorted((ROOT / directory).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        for match in FORMS.finditer(path.read_text()):
            found.add((relative, f"{match.group(1)}.{match.group(2)}"))
    assert found <= allowed, found
