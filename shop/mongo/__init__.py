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
