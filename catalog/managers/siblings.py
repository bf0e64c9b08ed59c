"""How the catalog's managers reach the catalog's other models: by name, through Django's app
registry, never by importing ``catalog.models`` (which imports the managers)."""

from django.apps import apps


def catalog_model(name):
    """The catalog's model class called ``name`` (e.g. ``"Product"``). Raises ``LookupError``
    for an unknown name."""
    return apps.get_model("catalog", name)


def bump_catalog_version(names=None):
    """Bump the versions ``names`` (scope names, ``catalog/cache.py``; None: the epoch, which
    cools every cached read) after a catalog write (one write); returns ``{name: token}``.
    The catalog's own writes bump only what they change through ``catalog/managers/writes.py``;
    this is for a write that cannot say what it changed."""
    versions = catalog_model("CatalogVersion").objects
    return versions.bump() if names is None else versions.bump(names)
