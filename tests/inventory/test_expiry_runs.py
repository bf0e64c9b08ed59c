"""Expiry runs: each cart is written once (straight to ``expired``), the run is recorded in
``expiry_runs`` until its stock is back, and a run that crashed at any step is finished by the
next ``expire_carts``, alone or beside a run still going.

Crashes are injected (a ``BaseException`` no except clause of the shop catches, as a process
dying); races are forced with hooks and with threads.
"""


import pytest

from inventory.managers import expiry
from inventory.models import Cart, ExpiryRun, Inventory
from core.mongo.counter import count_operations

from tests.support.inventory import (age_carts, assert_invariant, assert_shoppers_kept_their_units, cart_doc,
                                     expire_beside_shoppers, fill_carts, hook_inventory, inventory, stock)

SKUS = ["A", "B", "C"]


class Crash(BaseException):
    """A process dying mid-run: no except clause of the shop runs."""


def fill(carts, skus=SKUS, qty=1):
    """``carts`` active carts, each holding ``qty`` of every SKU of ``skus``; their ids."""
    return fill_carts(carts, skus, qty)


def all_back(skus=SKUS, qty=10):
    return all(inventory(sku)["qty"] == qty and inventory(sku)["carted"] == [] for sku in skus)


def crash_on_first(monkeypatch, owner, name):
    """Make the first call of ``owner.name`` raise ``Crash`` (later calls run as usual)."""
    real = getattr(owner, name)
    calls = []

    def crashing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise Crash(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, crashing)


def test_each_cart_is_written_once_straight_to_expired():
    for sku in SKUS:
        stock(sku, 10)
    old = fill(5)
    fresh = fill(1)
    age_carts(120)
    Cart.objects.collection.update_many({"_id": {"$in": fresh}}, {"$currentDate": {"last_modified": True}})
    with count_operations() as ops:
        assert Cart.expiry.expire(60) == {"expired": 5, "returned": 15}
    cart_writes = [n for (collection, op), n in zip(ops.operations, ops.statements)
                   if collection == "carts" and op in ("update", "findAndModify")]
    # One write of the idle carts (a bulk_write of an update_many per status: active, expiring);
    # the carts left are read (the fresh one) and none is undated or past its maximum age, so
    # nothing more is written. No second status write.
    assert cart_writes == [2]
    stamps = {cart_doc(c)["last_modified"] for c in old}
    assert len(stamps) == 1 and {cart_doc(c)["status"] for c in old} == {"expired"}
    assert cart_doc(fresh[0])["status"] == "active"
    assert ExpiryRun.objects.unfinished() == []
    assert inventory("A")["qty"] == 9
    assert_invariant()


@pytest.mark.parametrize("step", ["before its carts are written", "while the undated carts are dated",
                                  "after its carts are written", "while the stock goes back",
                                  "before the run is forgotten"])
def test_a_run_crashed_at_any_step_is_finished_by_the_next(monkeypatch, step):
    for sku in SKUS:
        stock(sku, 10)
    carts = fill(4)
    age_carts(120)
    if step == "before its carts are written":
        crash_on_first(monkeypatch, Cart.expiry, "_mark")
    elif step == "while the undated carts are dated":
        # Carts from before created_at was kept; the idle ones are expired before the dating.
        Cart.objects.collection.update_many({}, {"$unset": {"created_at": ""}})
        crash_on_first(monkeypatch, Cart.expiry, "date_undated")
    elif step == "after its carts are written":
        crash_on_first(monkeypatch, Inventory.returns, "return_reservations")
    elif step == "while the stock goes back":
        def crash():
            raise Crash("bulk_write")
        hook_inventory(monkeypatch, "bulk_write", crash)
    else:
        crash_on_first(monkeypatch, ExpiryRun.objects, "finish")
    with pytest.raises(Crash):
        Cart.expiry.expire(60)
    monkeypatch.undo()
    crashed = ExpiryRun.objects.unfinished()
    assert len(crashed) == 1  # the run is recorded as unfinished whatever the step
    statuses = {cart_doc(c)["status"] for c in carts}
    assert statuses == ({"active"} if step == "before its carts are written" else {"expired"})
    stock_back = step == "before the run is forgotten"
    assert all_back() == stock_back
    report = Cart.expiry.expire(60)
    assert report == {"expired": 4, "returned": 0 if stock_back else 12}
    assert {cart_doc(c)["status"] for c in carts} == {"expired"}
    assert all_back()
    assert ExpiryRun.objects.unfinished() == []
    assert_invariant()


def test_a_crashed_run_with_a_shorter_timeout_is_finished_by_a_run_with_a_longer_one(monkeypatch):
    for sku in SKUS:
        stock(sku, 10)
    carts = fill(2)
    age_carts(120)
    crash_on_first(monkeypatch, Cart.expiry, "_mark")
    with pytest.raises(Crash):
        Cart.expiry.expire(60)
    monkeypatch.undo()
    paying = carts[1]
    Cart.objects.collection.update_one({"_id": paying}, {"$set": {"status": "pending"}})
    # A run with a one-hour timeout would take none of these carts; the crashed one's terms do,
    # but never a pending cart.
    assert Cart.expiry.expire(3600) == {"expired": 1, "returned": 3}
    assert cart_doc(carts[0])["status"] == "expired" and cart_doc(paying)["status"] == "pending"
    assert ExpiryRun.objects.unfinished() == []
    assert inventory("A")["qty"] == 9
    assert_invariant()


def test_a_crashed_staff_expiry_is_finished_for_its_cart_only(monkeypatch):
    for sku in SKUS:
        stock(sku, 10)
    target, other = fill(2)  # both fresh
    crash_on_first(monkeypatch, Inventory.returns, "return_reservations")
    with pytest.raises(Crash):
        Cart.expiry.expire_cart(target)
    monkeypatch.undo()
    assert cart_doc(target)["status"] == "expired"
    assert Cart.expiry.expire(3600) == {"expired": 1, "returned": 3}
    assert cart_doc(other)["status"] == "active"
    assert inventory("A")["qty"] == 9 and [e["cart_id"] for e in inventory("A")["carted"]] == [other]
    assert ExpiryRun.objects.unfinished() == []
    assert_invariant()


def test_a_cart_left_expiring_by_an_earlier_version_is_finished():
    # That version marked carts 'expiring', returned their stock, then marked them 'expired'.
    for sku in SKUS:
        stock(sku, 10)
    (cart,) = fill(1)
    age_carts(120)
    Cart.objects.collection.update_one({"_id": cart}, {"$set": {"status": "expiring", "expiry_run": "old"}})
    assert Cart.expiry.expire(60) == {"expired": 1, "returned": 3}
    assert cart_doc(cart)["status"] == "expired"
    assert all_back()
    assert_invariant()


@pytest.mark.parametrize("pause", ["before its carts are written", "after its carts are written"])
def test_a_run_adopted_while_it_is_still_going_returns_nothing_twice(monkeypatch, pause):
    """Run 2 starts while run 1 is paused; run 2 finishes run 1's carts, then run 1 goes on."""
    for sku in SKUS:
        stock(sku, 10)
    carts = fill(3)
    age_carts(120)
    second = {}

    def run_two():
        second["report"] = Cart.expiry.expire(60)

    if pause == "before its carts are written":
        real = Cart.expiry._mark
        calls = []

        def mark(run):
            calls.append(run["_id"])
            if len(calls) == 1:
                run_two()
            return real(run)

        monkeypatch.setattr(Cart.expiry, "_mark", mark)
    else:
        hook_inventory(monkeypatch, "find", run_two)  # run 1's read of the SKUs
    first = Cart.expiry.expire(60)
    monkeypatch.undo()
    assert second["report"]["expired"] == 3 and second["report"]["returned"] == 9
    assert first["returned"] == 0
    assert {cart_doc(c)["status"] for c in carts} == {"expired"}
    assert all_back()
    assert ExpiryRun.objects.unfinished() == []
    assert_invariant()


def test_concurrent_runs_and_shoppers_in_threads_keep_every_unit():
    """Three expire_carts runs and three shoppers at once on the same SKUs."""
    for sku in SKUS:
        stock(sku, 500)
    old = fill(20)
    age_carts(120)
    errors, _ = expire_beside_shoppers(SKUS, shoppers=3, runs=3)
    assert not errors, errors
    assert_shoppers_kept_their_units(old, SKUS, shoppers=3, stocked=500)
    assert ExpiryRun.objects.unfinished() == []


def test_expiry_streams_the_carts_of_a_large_run_in_chunks(monkeypatch):
    monkeypatch.setattr(expiry, "EXPIRY_CHUNK", 4)
    for sku in SKUS:
        stock(sku, 20)
    fill(10)
    age_carts(120)
    seen = []
    assert Cart.expiry.expire(60, progress=seen.append) == {"expired": 10, "returned": 30}
    assert seen == [4, 4, 2]
    assert all_back(qty=20)


def test_expire_carts_killed_with_kill_9_is_finished_by_the_next_run():
    """``manage.py expire_carts`` in a process of its own, ``kill -9``ed once its run is recorded."""
    import datetime
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from django.db import connections

    old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
    skus = [f"K{n}" for n in range(30)]
    carted = {sku: [] for sku in skus}
    documents = []
    for number in range(4000):  # written raw, in bulk: the set-up, not the code under test
        cart_id = f"kill-{number:05d}"
        lines = [skus[number % 30], skus[(number * 7 + 1) % 30]]
        documents.append({"_id": cart_id, "status": "active", "last_modified": old, "user_id": "",
                          "items": [{"sku": sku, "qty": 1, "details": {"title": "t", "price": 1}} for sku in lines]})
        for sku in lines:
            carted[sku].append({"qty": 1, "cart_id": cart_id, "timestamp": old})
    Cart.objects.collection.insert_many(documents)
    Inventory.objects.collection.insert_many([{"_id": sku, "qty": 5, "stocked": 5 + len(entries), "carted": entries}
                                              for sku, entries in carted.items()])
    database = connections["default"].settings_dict
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MONGODB_"))}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_DEBUG="1", SHOP_LOAD_DEMO_CATALOG="0",
                   MONGODB_URI=database["HOST"], MONGODB_NAME=database["NAME"])
    process = subprocess.Popen([sys.executable, "manage.py", "expire_carts", "--timeout", "60", "--quiet"],
                               cwd=Path(__file__).resolve().parents[2], env=environ,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not ExpiryRun.objects.unfinished() and process.poll() is None:
            assert time.monotonic() < deadline, "the run was never recorded"
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL, process.stderr.read()  # killed mid-run, not finished
    assert len(ExpiryRun.objects.unfinished()) == 1
    assert Cart.expiry.expire(60)["expired"] == 4000
    assert Cart.objects.collection.count_documents({"status": "expired"}) == 4000
    assert all(inventory(sku)["qty"] == inventory(sku)["stocked"] and inventory(sku)["carted"] == [] for sku in skus)
    assert ExpiryRun.objects.unfinished() == []
    assert_invariant()


def test_the_idle_carts_write_reads_the_idle_carts_not_the_fresh_ones():
    # A shop has many fresh carts beside the idle few. ``status: {$in: [...]}`` made the local
    # server read every cart (local-server difference 17); one update_many per status, each an
    # equality and a range on ``status_last_modified``, reads only the idle carts' entries.
    for sku in SKUS:
        stock(sku, 100)
    idle = fill(3)
    age_carts(120)
    fill(20)  # fresh
    with count_operations() as ops:
        assert Cart.expiry.expire(60)["expired"] == len(idle)
    database = Cart.objects.collection.database
    examined = 0
    for (name, op), command in zip(ops.operations, ops.commands):
        if name == "carts" and op == "update":
            for statement in command["updates"]:
                plan = database.command("explain", {"find": "carts", "filter": statement["q"]},
                                        verbosity="executionStats")
                examined += plan["executionStats"]["totalDocsExamined"]
    assert examined <= len(idle), examined
    assert_invariant()
