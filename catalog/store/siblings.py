"""How the catalog's managers reach the catalog's other models: by name, through Django's app
registry, never by importing ``catalog.models`` (which imports the managers)."""

from django.apps import apps


def catalog_model(name):
    """The catalog's model class called ``name`` (e.g. ``"Product"``). Raises ``LookupError``
    for an unknown name."""
    return apps.get_model("catalog", name)

