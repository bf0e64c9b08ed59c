"""The shop's MongoDB layer: the Django backend, the embedded engine, counting.

``engine()`` is the one place code asks which engine is in use (for the
operators the embedded engine lacks: ``$text``, ``$cmp``, ``%L``).
"""

EMBEDDED = "embedded"
SERVER = "mongodb"


def engine(alias="default"):
    """Return ``"embedded"`` (mongomock-ng in process) or ``"mongodb"`` (a real server)."""
    from django.db import connections

    return EMBEDDED if connections[alias].is_embedded else SERVER


def is_embedded(alias="default"):
    """True when the embedded engine serves ``alias``."""
    return engine(alias) == EMBEDDED


def get_collection(name, alias="default"):
    """The pymongo (or embedded) collection ``name`` on the ``alias`` connection."""
    from django.db import connections

    return connections[alias].get_collection(name)


# ``MONGODB_READ_PREFERENCE`` values: pymongo's read preference modes by their
# MongoDB names (seed 001 "Scaling read performance without sharding").
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
    ``READ_PREFERENCES``. The embedded engine ignores read preferences (one
    process has no secondaries).
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
