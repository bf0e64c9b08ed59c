"""Checking and creating indexes, for ``python manage.py ensure_indexes``.

An index is described as pymongo's ``create_index`` takes it: a list of
``(field, direction)`` keys and a dict of options with at least a ``name``.
An existing index with the same keys counts as present whatever its name
(MongoDB refuses a second index on the same keys); a text index counts as
present when one exists over the same fields (a collection may have only one).
"""

from pymongo import TEXT
from pymongo.errors import OperationFailure

PRESENT = "present"
CREATED = "created"
MISSING = "missing"


def is_text_index(keys):
    """True when ``keys`` (``[(field, direction), ...]``) describe a text index."""
    return any(direction == TEXT for _field, direction in keys)


def _normal(keys):
    return [(field, int(d) if isinstance(d, (int, float)) else d) for field, d in keys]


def find_index(information, keys):
    """The name of the index in ``information`` (``index_information()``) serving ``keys``.

    Returns ``(name, None)`` when found, ``(None, None)`` when not, and
    ``(None, reason)`` when another text index stands in the way.
    """
    if is_text_index(keys):
        fields = {field for field, _ in keys}
        for name, spec in information.items():
            if any(field == "_fts" for field, _ in spec["key"]):
                if set(spec.get("weights", {})) == fields:
                    return name, None
                return None, (f"another text index {name!r} covers other fields; drop it first "
                              "(a collection has one text index at most)")
        return None, None
    wanted = _normal(keys)
    for name, spec in information.items():
        if _normal(spec["key"]) == wanted:
            return name, None
    return None, None


def ensure_index(collection, keys, options, create=True, supported=True):
    """Make sure ``collection`` has the index ``(keys, options)``.

    ``create=False`` only checks. ``supported=False`` (a text index on the
    embedded engine) reports it missing without trying. Returns
    ``(status, detail)``: ``status`` is ``PRESENT``, ``CREATED`` or
    ``MISSING``; ``detail`` is the existing index's name, or why it is missing
    (the server's error message when creating failed). One read, plus one
    write when created.
    """
    name, obstacle = find_index(collection.index_information(), keys)
    if name is not None:
        return PRESENT, name
    if obstacle:
        return MISSING, obstacle
    if not supported:
        return MISSING, "not supported by this engine"
    if not create:
        return MISSING, "not created (--check)"
    try:
        return CREATED, collection.create_index(keys, **options)
    except OperationFailure as error:
        return MISSING, str(error.details.get("errmsg", error) if error.details else error)
