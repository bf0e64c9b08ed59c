"""Sharding the shop's collections on a sharded cluster (``shard_collections``).

Each app declares its part of the plan beside its indexes, in ``<app>/indexes.py``
(``SHARD_KEYS``, ``UNSHARDED``, ``UNIQUE_BEFORE_SHARDING``); this module collects
them (``plan``), so the kernel imports no app. The plan, and what each key costs,
is ``docs/sharding.md``.

MongoDB enforces a unique index on a sharded collection only when the index
starts with the shard key, and refuses to shard a collection holding any
other. ``products``' unique ``sku`` index is its shard key's own index and
stays; ``orders``' unique ``number`` and ``cart_id`` are replaced by plain
indexes first (what guards those values then: ``docs/sharding.md``).

Only a ``mongos`` (the router of a sharded cluster) accepts these commands.
"""


from django.apps import apps
from django.db import connections
from pymongo.errors import OperationFailure

from core.mongo.indexes import MISSING, ensure_index, find_index, indexes_module

#: What each app may declare in its ``indexes`` module, and what the plan makes of it:
#: ``SHARD_KEYS``, a list of ``(collection, shard key, unique)`` in the order they are sharded;
#: ``UNSHARDED``, the collections left on the database's primary shard (Django's own, such as
#: users and sessions, stay unsharded too); ``UNIQUE_BEFORE_SHARDING``, ``{collection: (field,
#: ...)}``, unique single-field indexes a collection's shard key cannot keep: each is replaced
#: by a plain index on the same field before the collection is sharded.
PLAN = {"SHARD_KEYS": list, "UNSHARDED": tuple, "UNIQUE_BEFORE_SHARDING": dict}


def plan(name):
    """One part of the sharding plan (a name of ``PLAN``), collected from every installed app's
    ``indexes`` module in ``INSTALLED_APPS`` order. Reads no database."""
    collected = PLAN[name]()
    for app_config in apps.get_app_configs():
        module = indexes_module(app_config)
        declared = getattr(module, name, None) if module else None
        if declared is None:
            continue
        if isinstance(collected, dict):
            collected.update(declared)
        else:
            collected = collected + type(collected)(declared)
    return collected


def __getattr__(name):
    """``sharding.SHARD_KEYS``, ``sharding.UNSHARDED`` and ``sharding.UNIQUE_BEFORE_SHARDING``:
    the apps' declarations, collected when read (``plan``)."""
    if name in PLAN:
        return plan(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    unique_before_sharding = plan("UNIQUE_BEFORE_SHARDING")
    for collection, key, unique in plan("SHARD_KEYS"):
        namespace = f"{name}.{collection}"
        for field in unique_before_sharding.get(collection, ()):
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
