"""expire_carts at scale: the reservations of all expired carts go back with one write per SKU.

Round trips and writes are counted (machine-independent); races between the
read and the compare-and-set of a SKU are forced with hooks and with threads.
"""

from datetime import timedelta

from core.clock import now as clock_now
from inventory.managers import returns
from inventory.models import Cart, Inventory
from core.mongo.counter import count_operations

from tests.support.inventory import (add, age_carts, assert_invariant, assert_shoppers_kept_their_units, cart_doc,
                                     expire_beside_shoppers, fill_carts, inventory, stock)

SKUS = ["A", "B", "C"]


def fill(carts, skus=SKUS, qty=1):
    """``carts`` active carts, each holding ``qty`` of every SKU of ``skus``; their ids."""
    return fill_carts(carts, skus, qty)


def test_expiry_writes_grow_with_the_skus_touched_not_the_carts():
    counts = {}
    for carts in (4, 40):
        for sku in SKUS:
            stock(sku, 100)
        fill(carts)
        age_carts(120)
        with count_operations() as ops:
            assert Cart.expiry.expire(60) == {"expired": carts, "returned": carts * len(SKUS)}
        # the unfinished runs (one read), the run recorded, the idle carts expired (one
        # bulk_write of an update_many per status: active, expiring), the active carts left (one read: none, so nothing to date or expire by
        # age), the carts (one read), the SKUs' documents (one read), one bulk_write with one
        # update per SKU, the run forgotten.
        counts[carts] = (ops.total, ops.writes, ops.write_statements)
        assert [inventory(sku)["qty"] for sku in SKUS] == [100] * len(SKUS)
        assert all(inventory(sku)["carted"] == [] for sku in SKUS)
        assert_invariant()
        Cart.objects.collection.delete_many({})
        Inventory.objects.collection.delete_many({})
    assert counts[4] == counts[40] == (8, 4, 4 + len(SKUS)), counts


def test_expiry_writes_one_update_per_sku_holding_reservations():
    for sku in ["A", "B", "C", "D"]:
        stock(sku, 10)
    fill(3, skus=["A", "B"])
    fill(2, skus=["C"])
    age_carts(120)
    with count_operations() as ops:
        assert Cart.expiry.expire(60) == {"expired": 5, "returned": 8}
    assert ops.write_statements == 4 + 3  # the run's 4 (carts: 2, runs: 2), then A, B, C; not D
    assert [inventory(s)["qty"] for s in "ABCD"] == [10, 10, 10, 10]


def test_a_shopper_changing_a_sku_between_the_read_and_the_write_loses_nothing(monkeypatch):
    """The compare-and-set of one SKU loses to a shopper's add: the SKU is read and written again."""
    stock("A", 10)
    stock("B", 10)
    old = fill(3, skus=["A", "B"], qty=2)
    age_carts(120)
    shopper = Cart.objects.create_cart()
    real = Inventory.objects.collection.bulk_write
    calls = []

    def bulk_write(self, requests, **kwargs):
        if self.name == "inventory":
            calls.append(len(requests))
            if len(calls) == 1:
                add(shopper.id, "A", 3)  # between the expiry's read and its write
        return real.__func__(self, requests, **kwargs)

    monkeypatch.setattr(type(Inventory.objects.collection), "bulk_write", bulk_write)
    assert Cart.expiry.expire(60) == {"expired": 3, "returned": 6}
    monkeypatch.undo()
    assert calls == [2, 1]  # A lost its race and was written again, alone
    assert inventory("A")["qty"] == 7 and [e["cart_id"] for e in inventory("A")["carted"]] == [shopper.id]
    assert inventory("B") == {**inventory("B"), "qty": 10, "carted": []}
    assert all(cart_doc(c)["status"] == "expired" for c in old)
    assert_invariant()


def test_a_sku_that_keeps_changing_goes_back_entry_by_entry(monkeypatch):
    stock("A", 20)
    fill(2, skus=["A"])
    age_carts(120)
    shoppers = [Cart.objects.create_cart() for _ in range(returns.ATTEMPTS)]
    real = Inventory.objects.collection.bulk_write
    calls = []

    def bulk_write(self, requests, **kwargs):
        if self.name == "inventory":
            calls.append(len(requests))
            if len(calls) <= returns.ATTEMPTS:  # every compare-and-set loses
                add(shoppers[len(calls) - 1].id, "A", 1)
        return real.__func__(self, requests, **kwargs)

    monkeypatch.setattr(type(Inventory.objects.collection), "bulk_write", bulk_write)
    assert Cart.expiry.expire(60) == {"expired": 2, "returned": 2}
    monkeypatch.undo()
    assert calls == [1] * returns.ATTEMPTS + [2]  # then one conditional write per entry
    assert inventory("A")["qty"] == 20 - returns.ATTEMPTS
    assert sorted(e["cart_id"] for e in inventory("A")["carted"]) == sorted(c.id for c in shoppers)
    assert_invariant()


def test_expiry_racing_shoppers_in_threads_keeps_every_unit():
    """Four shoppers add to and change fresh carts on the same SKUs while expire_carts runs."""
    for sku in SKUS:
        stock(sku, 500)
    old = fill(30)
    age_carts(120)
    errors, _ = expire_beside_shoppers(SKUS, shoppers=4, runs=1)
    assert not errors, errors
    assert_shoppers_kept_their_units(old, SKUS, shoppers=4, stocked=500)


def _undate_carts():
    """Remove every cart's ``created_at``, as carts from before it was kept have none."""
    Cart.objects.collection.update_many({}, {"$unset": {"created_at": ""}})


def test_an_idle_cart_from_before_created_at_is_written_once_not_dated_then_expired():
    # Dating every undated active cart before the idle ones were taken wrote each idle
    # undated cart twice (issue 41: twice the run's time over such carts).
    counts = {}
    for carts in (4, 40):
        for sku in SKUS:
            stock(sku, 100)
        fill(carts)
        age_carts(120)
        _undate_carts()
        with count_operations() as ops:
            assert Cart.expiry.expire(60) == {"expired": carts, "returned": carts * len(SKUS)}
        counts[carts] = (ops.total, ops.writes, ops.modified.get("carts", 0))
        assert all(inventory(sku)["carted"] == [] and inventory(sku)["qty"] == 100 for sku in SKUS)
        assert_invariant()
        Cart.objects.collection.delete_many({})
        Inventory.objects.collection.delete_many({})
    # Round trips do not grow with the carts; the carts written are the carts expired, once each.
    assert counts[4][:2] == counts[40][:2] == (8, 4), counts
    assert (counts[4][2], counts[40][2]) == (4, 40), counts


def test_a_live_undated_cart_is_still_dated_and_a_too_old_one_expired():
    stock("A", 10)
    idle, live, old = fill(3, skus=["A"])
    age_carts(120)
    _undate_carts()
    Cart.objects.collection.update_one({"_id": live}, {"$set": {"last_modified": clock_now()}})
    # the too-old cart: touched now, but created (and so dated) long ago
    Cart.objects.collection.update_one({"_id": old}, {"$set": {"last_modified": clock_now(),
                                                              "created_at": clock_now() - timedelta(days=30)}})
    assert Cart.expiry.expire(60, max_age=7 * 24 * 3600) == {"expired": 2, "returned": 2}
    statuses = {c["_id"]: (c["status"], "created_at" in c) for c in Cart.objects.collection.find()}
    assert statuses[idle][0] == statuses[old][0] == "expired"
    assert statuses[live] == ("active", True)
    assert inventory("A")["qty"] == 9
