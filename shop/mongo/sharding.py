"""Sharding the shop's collections on a sharded cluster (``shard_collections``).

The plan, and what each key costs, is ``docs/sharding.md``. In short:
``categories`` (seed 000: small) and ``counters`` stay unsharded;
``products`` on ``{sku: 1}`` (not the seed's ``(type, details.genre, sku)``:
``details.genre`` is an array, and a shard key's index cannot be multikey);
``inventory`` on its ``_id`` (the SKU); ``carts`` and ``orders`` on a hashed
``_id`` (ObjectIds grow: a ranged key would send every insert to the last
chunk); ``events`` on ``(userid, ts)`` (seed 001: not the timestamp alone);
each ``stats.*`` level on ``_id``.

MongoDB enforces a unique index on a sharded collection only when the index
starts with the shard key, and refuses to shard a collection holding any
other. ``products``' unique ``sku`` index is its shard key's own index and
stays; ``orders``' unique ``number`` and ``cart_id`` are replaced by plain
indexes first (what guards those values then: ``docs/sharding.md``).

Only a ``mongos`` (the router of a sharded cluster) accepts these commands.
"""

from django.db import connections
from pymongo.errors import OperationFailure

from analytics.periods import LEVELS
from shop.mongo.indexes import MISSING, ensure_index, find_index

#: The shop's collections the plan leaves unsharded (on the database's primary shard); Django's own
#: (users, sessions, ...) stay unsharded too.
UNSHARDED = ("categories", "counters", "expiry_runs", "payment_attempts", "stats.progress")

#: ``(collection, shard key, unique)`` in the order they are sharded.
SHARD_KEYS = [
    ("products", {"sku": 1}, True),
    ("inventory", {"_id": 1}, False),
    ("carts", {"_id": "hashed"}, False),
    ("orders", {"_id": "hashed"}, False),
    ("events", {"userid": 1, "ts": 1}, False),
    *[(level.collection, {"_id": 1}, False) for level in LEVELS],
]

#: Unique single-field indexes a collection's shard key cannot keep: each is
#: replaced by a plain index on the same field before the collection is sharded.
UNIQUE_BEFORE_SHARDING = {"orders": ("number", "cart_id")}


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
    """Enable sharding of the database, then shard each collection of ``SHARD_KEYS``, in order.

    For each collection: first the unique indexes its key cannot keep
    (``UNIQUE_BEFORE_SHARDING``: drop, then a plain index on the same
    field), then the index the key needs (unless the key is the ranged
    ``_id``; an index with the same keys counts whatever its name), then
    ``shardCollection``. Yields ``(command, answer, ok)`` for each command
    sent: ``command`` a short description (``"shardCollection shop.products
    {...}"``), ``answer`` the server's answer or refusal (a dict), ``ok``
    whether it succeeded. A refusal does not stop the others. Safe to run
    again. Call it on a mongos only (``is_mongos``).
    """
    name = connections[alias].settings_dict["NAME"]
    yield _run(f"enableSharding {name}", admin_command, alias, "enableSharding", name)
    for collection, key, unique in SHARD_KEYS:
        namespace = f"{name}.{collection}"
        for field in UNIQUE_BEFORE_SHARDING.get(collection, ()):
            yield _run(f"dropIndex {namespace} unique {field}",
                       drop_unique_index, alias, collection, field)
            yield _run(f"createIndex {namespace} {{{field!r}: 1}}",
                       create_index, alias, collection, {field: 1})
        if key != {"_id": 1}:
            # A collection that holds documents needs an index starting with its shard key.
            yield _run(f"createIndex {namespace} {key}", create_index, alias, collection, key)
        options = {"key": key, "unique": True} if unique else {"key": key}
        yield _run(f"shardCollection {namespace} {key}", admin_command, alias,
                   "shardCollection", namespace, **options)


def create_index(alias, collection, key):
    """Make sure ``collection`` has an index on ``key`` (a dict), named after its fields.

    An index with the same keys counts whatever its name and options (the
    unique ``sku`` index serves ``products``' key). Returns ``{"ok": 1,
    "name": ..., "status": "present" | "created"}``. Raises
    ``OperationFailure`` when the server refuses to create it.
    """
    keys = list(key.items())
    options = {"name": "_".join(field.replace(".", "_") + ("_hashed" if kind == "hashed" else "")
                                for field, kind in key.items())}
    status, detail = ensure_index(connections[alias].get_collection(collection), keys, options)
    if status == MISSING:
        raise OperationFailure(detail, details={"ok": 0, "errmsg": detail})
    return {"ok": 1, "name": detail, "status": status}


def drop_unique_index(alias, collection, field):
    """Drop the unique index on ``field`` alone of ``collection``, if there is one.

    Returns ``{"ok": 1, "dropped": name or None}``. Raises
    ``OperationFailure`` when the server refuses.
    """
    target = connections[alias].get_collection(collection)
    information = target.index_information()
    name = find_index(information, [(field, 1)])
    if name is None or not information[name].get("unique"):
        return {"ok": 1, "dropped": None}
    target.drop_index(name)
    return {"ok": 1, "dropped": name}


def _run(description, function, *args, **kwargs):
    try:
        return description, function(*args, **kwargs), True
    except OperationFailure as error:
        return description, error.details or {"ok": 0, "errmsg": str(error)}, False
