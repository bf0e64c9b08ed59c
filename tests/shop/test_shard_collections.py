"""``shard_collections``: the sharding plan (docs/sharding.md) sent to a sharded cluster, in
order; says why not elsewhere. The cluster is a stub that records the commands sent."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pymongo.errors import OperationFailure

from core.mongo import get_collection, sharding

LEVELS = ("hourly", "daily", "weekly", "monthly", "yearly")


def run():
    out = StringIO()
    call_command("shard_collections", stdout=out)
    return out.getvalue()


@pytest.fixture
def server(monkeypatch):
    """Pretend to be on a server whose hello answer and commands the test sets.

    ``sent`` records every command in order: ``(name, namespace or collection,
    key or field, options)``; a namespace in ``refuse`` makes its commands fail.
    """
    sent = []
    state = {"hello": {"isWritablePrimary": True}, "refuse": set(), "sent": sent}

    def refuse_if_asked(target):
        if target in state["refuse"]:
            raise OperationFailure("refused", code=72, details={"ok": 0, "errmsg": f"cannot shard {target}"})

    def admin_command(alias, name, *args, **kwargs):
        if name == "hello":
            return state["hello"]
        sent.append((name, *args, kwargs.get("key"), kwargs.get("unique", False)))
        refuse_if_asked(args[0])
        return {"ok": 1, "collectionsharded": args[0]} if name == "shardCollection" else {"ok": 1}

    def create_index(alias, collection, key):
        sent.append(("createIndex", collection, key))
        refuse_if_asked(collection)
        return {"ok": 1, "name": "_".join(key), "status": "created"}

    def drop_unique_index(alias, collection, field):
        sent.append(("dropUniqueIndex", collection, field))
        refuse_if_asked(collection)
        return {"ok": 1, "dropped": f"{collection}_{field}_uniq"}

    monkeypatch.setattr(sharding, "admin_command", admin_command)
    monkeypatch.setattr(sharding, "create_index", create_index)
    monkeypatch.setattr(sharding, "drop_unique_index", drop_unique_index)
    return state


@pytest.fixture
def name(settings):
    return settings.DATABASES["default"]["NAME"]


@pytest.mark.parametrize("hello, what", [
    ({"isWritablePrimary": True}, "a standalone server"),
    ({"isWritablePrimary": True, "setName": "rs0"}, "a member of replica set 'rs0'"),
])
def test_a_server_that_is_not_a_mongos_is_refused(server, hello, what):
    server["hello"] = hello
    with pytest.raises(CommandError, match=f"points to {what}, not a mongos"):
        run()
    assert server["sent"] == []  # nothing was sent


def test_on_a_mongos_sends_the_plan_in_order_and_prints_answers(server, name):
    server["hello"] = {"msg": "isdbgrid"}
    out = run()
    assert server["sent"] == [
        ("enableSharding", name, None, False),
        # products: the unique skus index (every SKU, variants' too) becomes a plain one first;
        # the unique sku index is the key's own index (it stays, and is enforced).
        ("dropUniqueIndex", "products", "skus"),
        ("createIndex", "products", {"skus": 1}),
        ("createIndex", "products", {"sku": 1}),
        ("shardCollection", f"{name}.products", {"sku": 1}, True),
        ("shardCollection", f"{name}.inventory", {"_id": 1}, False),
        ("createIndex", "carts", {"_id": "hashed"}),
        ("shardCollection", f"{name}.carts", {"_id": "hashed"}, False),
        # orders: the unique number and cart_id indexes become plain ones first.
        ("dropUniqueIndex", "orders", "number"),
        ("createIndex", "orders", {"number": 1}),
        ("dropUniqueIndex", "orders", "cart_id"),
        ("createIndex", "orders", {"cart_id": 1}),
        ("createIndex", "orders", {"_id": "hashed"}),
        ("shardCollection", f"{name}.orders", {"_id": "hashed"}, False),
        ("createIndex", "events", {"userid": 1, "ts": 1}),
        ("shardCollection", f"{name}.events", {"userid": 1, "ts": 1}, False),
        *[("shardCollection", f"{name}.stats.{level}", {"_id": 1}, False) for level in LEVELS],
    ]
    assert f'shardCollection {name}.carts {{\'_id\': \'hashed\'}}: {{"ok": 1, ' in out
    assert f"dropIndex {name}.orders unique cart_id: " in out
    assert "Every collection is sharded." in out


def test_categories_counters_and_the_rollup_progress_stay_unsharded(server):
    server["hello"] = {"msg": "isdbgrid"}
    run()
    targets = {command[1].split(".", 1)[1] if command[0] == "shardCollection" else command[1]
               for command in server["sent"][1:]}
    assert "stats.hourly" in targets and "orders" in targets
    assert set(sharding.UNSHARDED) == {"categories", "counters", "expiry_runs", "payment_attempts", "stats.progress",
                                       "invoices"}
    assert not targets & {"categories", "counters", "expiry_runs", "stats.progress"}


def test_no_unique_index_but_the_keys_own_is_left_on_a_collection_when_it_is_sharded(server, name):
    server["hello"] = {"msg": "isdbgrid"}
    run()
    sent = server["sent"]
    orders = sent.index(("shardCollection", f"{name}.orders", {"_id": "hashed"}, False))
    for field in ("number", "cart_id"):
        assert sent.index(("dropUniqueIndex", "orders", field)) < orders
    # Every unique field index of a sharded model is the shard key's own or is dropped first.
    from catalog.models import Product
    from inventory.models import Cart, Inventory
    from orders.models import Order

    for model in (Product, Inventory, Cart, Order):
        table = model._meta.db_table
        key = next(key for collection, key, _unique in sharding.SHARD_KEYS if collection == table)
        for field in model._meta.fields:
            if field.unique and not field.primary_key:
                assert list(key) == [field.column] or field.column in sharding.UNIQUE_BEFORE_SHARDING[table]


def test_the_stats_levels_come_from_analytics():
    from analytics.indexes import INDEXES

    sharded = [collection for collection, _key, _unique in sharding.SHARD_KEYS]
    assert [c for c in sharded if c.startswith("stats.")] == [c for c in INDEXES if c.startswith("stats.")]


def test_a_refused_command_is_printed_and_the_others_are_still_sent(server, name):
    server["hello"] = {"msg": "isdbgrid"}
    server["refuse"] = {f"{name}.products", "orders"}
    out = StringIO()
    with pytest.raises(CommandError, match=f"refused 6 command\\(s\\): {name}.products, {name}.orders"):
        call_command("shard_collections", stdout=out)
    assert f'"errmsg": "cannot shard {name}.products"' in out.getvalue()
    # Everything after a refusal was still sent.
    assert ("shardCollection", f"{name}.inventory", {"_id": 1}, False) in server["sent"]
    assert ("shardCollection", f"{name}.stats.yearly", {"_id": 1}, False) in server["sent"]
    assert len(server["sent"]) == 21  # the whole plan


def test_a_server_that_is_not_a_mongos_cannot_shard():
    # The local server (a one-node replica set) is such a server.
    if sharding.is_mongos(sharding.server_hello()):
        pytest.skip("the server is a mongos")
    with pytest.raises(CommandError, match="not a mongos"):
        run()


@pytest.fixture
def scratch():
    collection = get_collection("shard_scratch")
    yield collection
    collection.drop()


def test_a_unique_index_becomes_a_plain_one_and_again_changes_nothing(scratch):
    scratch.create_index([("number", 1)], name="number_uniq", unique=True)
    assert sharding.drop_unique_index("default", "shard_scratch", "number") == {"ok": 1, "dropped": "number_uniq"}
    assert sharding.create_index("default", "shard_scratch", {"number": 1}) == {
        "ok": 1, "name": "number", "status": "created"}
    assert not scratch.index_information()["number"].get("unique")
    # Run again: nothing to drop, the plain index is there.
    assert sharding.drop_unique_index("default", "shard_scratch", "number") == {"ok": 1, "dropped": None}
    assert sharding.create_index("default", "shard_scratch", {"number": 1})["status"] == "present"


def test_the_keys_index_counts_whatever_its_name(scratch):
    scratch.create_index([("userid", 1), ("ts", 1)], name="userid_ts")
    assert sharding.create_index("default", "shard_scratch", {"userid": 1, "ts": 1}) == {
        "ok": 1, "name": "userid_ts", "status": "present"}
    assert sharding.create_index("default", "shard_scratch", {"a.b": 1, "c": 1})["name"] == "a_b_c"
