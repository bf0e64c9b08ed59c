"""The shop's index registry, and checking and creating indexes (``migrate``, ``ensure_indexes``).

An index is described as pymongo's ``create_index`` takes it: a list of
``(field, direction)`` keys and a dict of options with at least a ``name``.
Each app that has collections declares their indexes in ``<app>/indexes.py``
(or the module its ``AppConfig.indexes_module`` names, e.g. ``catalog.store.indexes``) as ``INDEXES = {collection name: [(keys, options), ...]}``; ``registry()``
collects them all. An existing index with the same keys counts as present
whatever its name (MongoDB refuses a second index on the same keys).

Not in the registry: ``_id`` and the unique indexes Django creates from a
field's ``unique=True`` (``products.sku``, ``categories.slug``,
``orders.number``, ``orders.cart_id``): migrations make those, and the
sharding plan replaces some of them (``docs/sharding.md``).
"""

from importlib import import_module

from django.apps import apps
from django.db import connections
from django.utils.module_loading import module_has_submodule
from pymongo.errors import OperationFailure

PRESENT = "present"
CREATED = "created"
MISSING = "missing"


def indexes_module(app_config):
    """The module of ``app_config`` declaring its indexes and sharding plan, or None:
    ``AppConfig.indexes_module`` (a dotted name inside the app) or ``indexes``."""
    relative = getattr(app_config, "indexes_module", "indexes")
    if not module_has_submodule(app_config.module, relative.split(".")[0]):
        return None
    return import_module(f"{app_config.name}.{relative}")


def registry():
    """Every index the shop's apps declare: ``{collection: [(keys, options), ...]}``.

    Collected from the ``INDEXES`` of each installed app's ``indexes`` module,
    in ``INSTALLED_APPS`` order (an app without one declares none). Reads no
    database.
    """
    collected = {}
    for app_config in apps.get_app_configs():
        module = indexes_module(app_config)
        declared = getattr(module, "INDEXES", {}) if module else {}
        for collection, indexes in declared.items():
            collected.setdefault(collection, []).extend(indexes)
    return collected


def create_indexes(alias="default", indexes=None):
    """Create ``indexes`` (default: the whole ``registry()``) on ``alias``'s database (idempotent).

    ``indexes`` is ``{collection: [(keys, options), ...]}``, as an app's
    ``INDEXES`` or a migration's literal list. One ``createIndexes`` per
    index (a no-op on the server when it exists). Returns the index names, in
    order.
    """
    connection = connections[alias]
    names = []
    for collection, specs in (registry() if indexes is None else indexes).items():
        for keys, options in specs:
            names.append(connection.get_collection(collection).create_index(keys, **options))
    return names


def model_indexes(*models):
    """The ``Meta.indexes`` of ``models`` as registry entries: ``{db_table: [(keys, options), ...]}``.

    For apps whose models declare some of their indexes (Django's migrations
    create those), so that ``ensure_indexes`` checks them as well. Each index
    is on plain fields (``"-field"`` descending); options are its name.
    """
    declared = {}
    for model in models:
        for index in model._meta.indexes:
            keys = [(model._meta.get_field(name).column, -1 if order == "DESC" else 1)
                    for name, order in index.fields_orders]
            declared.setdefault(model._meta.db_table, []).append((keys, {"name": index.name}))
    return declared


def _normal(keys):
    return [(field, int(d) if isinstance(d, (int, float)) else d) for field, d in keys]


def find_index(information, keys):
    """The name of the index in ``information`` (``index_information()``) serving ``keys``, or None."""
    wanted = _normal(keys)
    for name, spec in information.items():
        if _normal(spec["key"]) == wanted:
            return name
    return None


def ensure_index(collection, keys, options, create=True):
    """Make sure ``collection`` has the index ``(keys, options)``.

    ``create=False`` only checks. Returns
    ``(status, detail)``: ``status`` is ``PRESENT``, ``CREATED`` or
    ``MISSING``; ``detail`` is the existing index's name, or why it is missing
    (the server's error message when creating failed). One read, plus one
    write when created.
    """
    name = find_index(collection.index_information(), keys)
    if name is not None:
        return PRESENT, name
    if not create:
        return MISSING, "not created (--check)"
    try:
        return CREATED, collection.create_index(keys, **options)
    except OperationFailure as error:
        return MISSING, str(error.details.get("errmsg", error) if error.details else error)


def make_unique_index_plain(collection, field):
    """Replace a partial unique index on ``field`` alone by a plain one of the same name.

    For databases migrated before ``core.mongo.schema`` created such indexes
    plain (see there why). Returns the index name, or None when there was no
    partial one to replace. Two writes (drop, create).
    """
    for name, spec in collection.index_information().items():
        if _normal(spec["key"]) == [(field, 1)] and spec.get("unique") and "partialFilterExpression" in spec:
            collection.drop_index(name)
            return collection.create_index([(field, 1)], name=name, unique=True)
    return None
