"""How the catalog's managers reach the catalog's other models: by name, through Django's app
registry, never by importing ``catalog.models`` (which imports the managers)."""

from django.apps import apps


def catalog_model(name):
    """The catalog's model class called ``name`` (e.g. ``"Product"``). Raises ``LookupError``
    for an unknown name."""
    return apps.get_model("catalog", name)


def bump_catalog_version():
    """``CatalogVersion.objects.bump()``: give the catalog a new version after a write (one
    write); returns the new token (str)."""
    return catalog_model("CatalogVersion").objects.bump()
