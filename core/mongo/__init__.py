"""The shop's MongoDB layer: the Django backend, the local server, counting.

Every mode is pymongo over the wire: the local SecantusDB server when
``MONGODB_URI`` is unset (``localserver``), any MongoDB when it is set.
``engine()`` says which, for the health check; code never branches on it
(where the local server lacks a feature, the shop's queries use a form every
server evaluates the same way).
"""

LOCAL = "local"
SERVER = "mongodb"

#: The server's error code for a duplicate key: a document another writer inserted first.
DUPLICATE_KEY = 11000


def only_duplicate_keys(error):
    """Whether every write error of ``error`` (a pymongo ``BulkWriteError``) is a duplicate key:
    documents another writer made first, which an unordered bulk meant to leave as they are."""
    return all(e.get("code") == DUPLICATE_KEY for e in error.details.get("writeErrors", []))


def keep_first_of_racing_upserts(collection, writes):
    """Run ``writes`` (upserts, e.g. ``ReplaceOne(..., upsert=True)``) on ``collection`` as one
    unordered ``bulk_write`` (none for no writes). A write that loses to a document another
    writer inserted at the same moment (a duplicate key: two first upserts of one ``_id``)
    leaves that document as it is: for kept counts, where both writers counted at a stamp read
    before they counted. Re-raises a ``BulkWriteError`` with any other error."""
    from pymongo.errors import BulkWriteError

    if not writes:
        return
    try:
        collection.bulk_write(writes, ordered=False)
    except BulkWriteError as error:
        if not only_duplicate_keys(error):
            raise


def engine(alias="default"):
    """Return ``"local"`` (the shop's own SecantusDB server) or ``"mongodb"`` (``MONGODB_URI``)."""
    from django.db import connections

    return LOCAL if connections[alias].is_local else SERVER


def get_collection(name, alias="default"):
    """The pymongo collection ``name`` on the ``alias`` connection."""
    from django.db import connections

    return connections[alias].get_collection(name)


# ``MONGODB_READ_PREFERENCE`` values: pymongo's read preference modes by their
# MongoDB names ("Product Catalog" use case "Scaling read performance without sharding").
READ_PREFERENCES = {
    "primary": "PRIMARY",
    "primaryPreferred": "PRIMARY_PREFERRED",
    "secondary": "SECONDARY",
    "secondaryPreferred": "SECONDARY_PREFERRED",
    "nearest": "NEAREST",
}


def read_preference():
    """The pymongo read preference named by the ``MONGODB_READ_PREFERENCE`` setting.

    Default ``"primary"``. Raises ``ImproperlyConfigured`` for a name not in
    ``READ_PREFERENCES``.
    """
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from pymongo import ReadPreference

    name = getattr(settings, "MONGODB_READ_PREFERENCE", "primary")
    try:
        return getattr(ReadPreference, READ_PREFERENCES[name])
    except KeyError:
        raise ImproperlyConfigured(
            f"MONGODB_READ_PREFERENCE must be one of {', '.join(READ_PREFERENCES)}, not {name!r}."
        ) from None
