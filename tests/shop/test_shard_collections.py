"""``shard_collections``: shards with the keys of ``docs/sharding.md`` on a sharded cluster; says why not elsewhere."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pymongo.errors import OperationFailure

from shop.mongo import sharding


def run():
    out = StringIO()
    call_command("shard_collections", stdout=out)
    return out.getvalue()


@pytest.fixture
def server(monkeypatch):
    """Pretend to be on a server whose hello answer and admin commands the test sets."""
    sent = []
    state = {"hello": {"isWritablePrimary": True}, "refuse": set()}

    def admin_command(alias, name, *args, **kwargs):
        if name == "hello":
            return state["hello"]
        sent.append((name, *args, kwargs.get("key")))
        if args and args[0] in state["refuse"]:
            raise OperationFailure("refused", code=72,
                                   details={"ok": 0, "errmsg": f"cannot shard {args[0]}"})
        return {"ok": 1, "collectionsharded": args[0]} if name == "shardCollection" else {"ok": 1}

    def create_index(alias, collection, key):
        sent.append(("createIndex", collection, key))
        return "_".join(f"{k}_{v}" for k, v in key.items())

    monkeypatch.setattr(sharding, "admin_command", admin_command)
    monkeypatch.setattr(sharding, "create_shard_key_index", create_index)
    state["sent"] = sent
    return state


@pytest.mark.parametrize("hello, what", [
    ({"isWritablePrimary": True}, "a standalone server"),
    ({"isWritablePrimary": True, "setName": "rs0"}, "a member of replica set 'rs0'"),
])
def test_a_server_that_is_not_a_mongos_is_refused(server, hello, what):
    server["hello"] = hello
    with pytest.raises(CommandError, match=f"points to {what}, not a mongos"):
        run()
    assert server["sent"] == []  # nothing was sent


def test_on_a_mongos_shards_with_the_design_keys_and_prints_answers(server, settings):
    server["hello"] = {"msg": "isdbgrid"}
    out = run()
    name = settings.DATABASES["default"]["NAME"]
    shard_commands = [c for c in server["sent"] if c[0] == "shardCollection"]
    assert server["sent"][0] == ("enableSharding", name, None)
    assert [(ns, key) for _, ns, key in shard_commands] == [
        (f"{name}.categories", {"_id": 1}),
        (f"{name}.products", {"type": 1, "details.genre": 1, "sku": 1}),
        (f"{name}.inventory", {"_id": 1}),
        (f"{name}.carts", {"_id": "hashed"}),
        (f"{name}.events", {"userid": 1, "ts": 1}),
        *[(f"{name}.stats.{level}", {"_id": 1})
          for level in ("hourly", "daily", "weekly", "monthly", "yearly")],
    ]
    # The index a shard key needs comes right before its shardCollection.
    products = server["sent"].index(("shardCollection", f"{name}.products",
                                     {"type": 1, "details.genre": 1, "sku": 1}))
    assert server["sent"][products - 1] == ("createIndex", "products",
                                            {"type": 1, "details.genre": 1, "sku": 1})
    assert f'shardCollection {name}.carts {{\'_id\': \'hashed\'}}: {{"ok": 1, ' in out
    assert "Every collection is sharded." in out


def test_a_refused_command_is_printed_and_exits_non_zero(server, settings):
    server["hello"] = {"msg": "isdbgrid"}
    name = settings.DATABASES["default"]["NAME"]
    server["refuse"] = {f"{name}.products"}
    out = StringIO()
    with pytest.raises(CommandError, match=f"refused 1 command\\(s\\): {name}.products"):
        call_command("shard_collections", stdout=out)
    assert f'"errmsg": "cannot shard {name}.products"' in out.getvalue()
    # The others were still sent.
    assert ("shardCollection", f"{name}.stats.yearly", {"_id": 1}) in server["sent"]


def test_a_server_that_is_not_a_mongos_cannot_shard():
    # The local server (a one-node replica set) is such a server.
    if sharding.is_mongos(sharding.server_hello()):
        pytest.skip("the server is a mongos")
    with pytest.raises(CommandError, match="not a mongos"):
        run()
