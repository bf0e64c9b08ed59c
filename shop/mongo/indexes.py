"""Checking and creating indexes, for ``python manage.py ensure_indexes``.

An index is described as pymongo's ``create_index`` takes it: a list of
``(field, direction)`` keys and a dict of options with at least a ``name``.
An existing index with the same keys counts as present whatever its name
(MongoDB refuses a second index on the same keys).
"""

from pymongo.errors import OperationFailure

PRESENT = "present"
CREATED = "created"
MISSING = "missing"


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

    For databases migrated before ``shop.mongo.schema`` created such indexes
    plain (see there why). Returns the index name, or None when there was no
    partial one to replace. Two writes (drop, create).
    """
    for name, spec in collection.index_information().items():
        if _normal(spec["key"]) == [(field, 1)] and spec.get("unique") and "partialFilterExpression" in spec:
            collection.drop_index(name)
            return collection.create_index([(field, 1)], name=name, unique=True)
    return None
