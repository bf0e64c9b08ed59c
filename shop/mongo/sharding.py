"""Sharding the shop's collections on a sharded cluster (``shard_collections``).

The shard keys are DESIGN.md's, from the seeds' "Sharding Concerns"
sections: categories and inventory by ``_id``; carts by a hashed ``_id``;
products by ``(type, details.genre, sku)`` (seed 001: most queries name the
type, then the genre; the SKU splits big genres); events by ``(userid, ts)``
(seed 001: not the timestamp alone, which would send every insert to one
shard); the ``stats.*`` rollups by ``_id``.

Only a ``mongos`` (the router of a sharded cluster) accepts these commands.
"""

from django.db import connections
from pymongo.errors import OperationFailure

SHARD_KEYS = [
    ("categories", {"_id": 1}),
    ("products", {"type": 1, "details.genre": 1, "sku": 1}),
    ("inventory", {"_id": 1}),
    ("carts", {"_id": "hashed"}),
    ("events", {"userid": 1, "ts": 1}),
    ("stats.hourly", {"_id": 1}),
    ("stats.daily", {"_id": 1}),
    ("stats.weekly", {"_id": 1}),
    ("stats.monthly", {"_id": 1}),
    ("stats.yearly", {"_id": 1}),
]


def _client(alias):
    connection = connections[alias]
    connection.ensure_connection()
    return connection.connection


def admin_command(alias, *args, **kwargs):
    """Run a command on the ``admin`` database of ``alias``'s server; returns its answer (a dict).

    Raises pymongo's ``OperationFailure`` when the server refuses it.
    """
    return _client(alias).admin.command(*args, **kwargs)


def server_hello(alias="default"):
    """The server's answer to ``hello`` (a dict): ``msg == "isdbgrid"`` on a mongos."""
    return admin_command(alias, "hello")


def is_mongos(hello):
    """True when a ``hello`` answer comes from a mongos (a sharded cluster's router)."""
    return hello.get("msg") == "isdbgrid"


def describe_server(hello):
    """What a ``hello`` answer says the server is, for a message: ``"a standalone server"``..."""
    if is_mongos(hello):
        return "a mongos"
    if hello.get("setName"):
        return f"a member of replica set {hello['setName']!r}"
    return "a standalone server"


def shard_collections(alias="default"):
    """Enable sharding of the database, then shard each collection of ``SHARD_KEYS``.

    Before sharding on a key other than ``_id``, creates the index the key
    needs. Yields ``(command, answer, ok)`` for each command sent, in order:
    ``command`` a short description (``"shardCollection shop.products
    {...}"``), ``answer`` the server's answer or refusal (a dict), ``ok``
    whether it succeeded. A refusal does not stop the others (e.g. MongoDB
    refuses a shard key that a unique index does not start with). Call it on
    a mongos only (``is_mongos``).
    """
    name = connections[alias].settings_dict["NAME"]
    yield _run(alias, f"enableSharding {name}", "enableSharding", name)
    for collection, key in SHARD_KEYS:
        namespace = f"{name}.{collection}"
        if key != {"_id": 1}:
            # A collection that holds documents needs an index starting with its shard key.
            yield _run_index(alias, collection, key, f"createIndex {namespace} {key}")
        yield _run(alias, f"shardCollection {namespace} {key}", "shardCollection", namespace, key=key)


def create_shard_key_index(alias, collection, key):
    """Create the index ``key`` (a dict) on ``collection`` (idempotent); returns its name."""
    return connections[alias].get_collection(collection).create_index(list(key.items()))


def _run_index(alias, collection, key, description):
    try:
        return description, {"ok": 1, "name": create_shard_key_index(alias, collection, key)}, True
    except OperationFailure as error:
        return description, error.details or {"ok": 0, "errmsg": str(error)}, False


def _run(alias, description, *args, **kwargs):
    try:
        return description, admin_command(alias, *args, **kwargs), True
    except OperationFailure as error:
        return description, error.details or {"ok": 0, "errmsg": str(error)}, False
