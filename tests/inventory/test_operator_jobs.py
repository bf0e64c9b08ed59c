"""The operators' long commands at scale: streamed passes with round trips that grow with the
batches, not the documents' count; ``--quiet`` for cron; no progress bar off a terminal."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from inventory import invariant
from inventory.models import Cart, Inventory
from orders.models import Order
from core.mongo.counter import count_operations

from tests.support.inventory import add, age_carts, age_reservations, inventory, stock


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_check_inventory_streams_the_stock_a_batch_at_a_time(monkeypatch):
    monkeypatch.setattr(invariant, "BATCH_SIZE", 10)
    for number in range(25):
        stock(f"S{number:02d}", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "S00", 2)
    seen = []
    with count_operations() as ops:
        assert invariant.check_invariant(Order.objects.sold_by_sku, progress=seen.append) == []
    # The units sold, the stock (a find and 2 getMores of 10), the carts of the first batch.
    assert [op for _, op in ops.operations] == ["aggregate", "find", "find", "getMore", "getMore"], ops
    assert seen == [10, 10, 5]


def test_check_inventory_still_names_a_sku_sold_without_a_stock_document(monkeypatch):
    stock("A", 5)
    monkeypatch.setattr(Order.objects, "sold_by_sku", lambda: {"GONE": 2})
    assert invariant.check_invariant(Order.objects.sold_by_sku) == [
        ("GONE", "2 sold but no inventory document")]


def test_cleanup_settles_every_batch_with_a_bounded_number_of_round_trips(monkeypatch):
    from inventory.managers import rules

    monkeypatch.setattr(rules, "BATCH_SIZE", 4)
    stock("A", 50)
    stock("B", 50)
    carts = []
    for _ in range(6):
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 1)
        add(cart.id, "B", 1)
        carts.append(cart.id)
    Cart.objects.collection.update_many({"_id": {"$in": carts[:3]}}, {"$set": {"status": "expired"}})
    age_reservations(7200)
    seen = []
    with count_operations() as ops:
        report = Inventory.cleanup.cleanup(3600, progress=seen.append)
    assert report == {"refreshed": 6, "sold": 0, "returned": 6}
    assert seen == [4, 4, 4]
    # One streamed read; per batch of 4 reservations: the carts, at most one bulk per kind.
    assert ops.reads == 1 + 3 and ops.writes <= 3 * 2, ops
    assert inventory("A")["qty"] == inventory("B")["qty"] == 47


def test_check_and_cleanup_read_the_carts_a_few_ids_at_a_time(monkeypatch):
    """The local server matches ``$in`` in n * n: carts are read ``IDS_PER_READ`` ids at a time."""
    from inventory.managers import rules

    monkeypatch.setattr(rules, "IDS_PER_READ", 3)
    monkeypatch.setattr(invariant, "IDS_PER_READ", 3)
    stock("A", 50)
    for _ in range(7):
        add(Cart.objects.create_cart().id, "A", 1)
    age_reservations(7200)

    def cart_reads(ops):
        return [len(command["filter"]["_id"]["$in"]) for (collection, op), command
                in zip(ops.operations, ops.commands) if (collection, op) == ("carts", "find")]

    with count_operations() as ops:
        assert invariant.check_invariant(Order.objects.sold_by_sku) == []
    assert sorted(cart_reads(ops)) == [1, 3, 3]
    with count_operations() as ops:
        assert Inventory.cleanup.cleanup(3600) == {"refreshed": 7, "sold": 0, "returned": 0}
    assert sorted(cart_reads(ops)) == [1, 3, 3]


@pytest.mark.parametrize("command", [("expire_carts", "--timeout", "60"), ("cleanup_inventory",),
                                     ("check_inventory",), ("rollup_stats", "--lag", "0")])
def test_quiet_commands_write_nothing_and_still_log(command, caplog):
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    age_carts(600)
    out, err = run(*command)
    assert out.strip() and not err  # the summary; no progress bar off a terminal
    if command[0] == "check_inventory":
        return
    Cart.objects.collection.update_many({}, {"$set": {"status": "active"}})
    with caplog.at_level("INFO", logger="shop.commands"):
        out, err = run(*command, "--quiet")
    assert (out, err) == ("", "")
    assert [r for r in caplog.records if r.name == "shop.commands"]


def test_quiet_check_inventory_still_fails_loudly():
    stock("A", 5)
    Inventory.objects.collection.update_one({"_id": "A"}, {"$inc": {"qty": 1}})
    with pytest.raises(CommandError, match="1 SKU\\(s\\): A\\.$"):
        run("check_inventory", "--quiet")
    Inventory.objects.collection.update_one({"_id": "A"}, {"$inc": {"qty": -1}})
    assert run("check_inventory", "--quiet") == ("", "")
