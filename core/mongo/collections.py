"""The one base of the shop's managers that speak raw pymongo to their model's collection.

The sources' operations (ancestor maintenance, conditional cart and inventory
updates, rollups) are written as pymongo on custom managers; this mixin gives
each of them its collection, a read-preference copy for the storefront's
reads, other collections by name, and model instances from raw documents.
"""

from django.db import connections

from . import read_preference
from .documents import model_from_document


class MongoCollectionMixin:
    """Mix into a ``models.Manager``: ``collection``, ``read_collection``, ``get_collection(name)``
    and ``from_document(document)``. Uses the manager's database alias (``self.db``)."""

    @property
    def collection(self):
        """The pymongo collection behind the manager's model (reads from the primary)."""
        return self.get_collection(self.model._meta.db_table)

    @property
    def read_collection(self):
        """``collection`` with the ``MONGODB_READ_PREFERENCE`` read preference ("Product Catalog" use case
        "Scaling read performance"), for the storefront's read-only queries.

        Reads that a write depends on use ``collection`` (the primary).
        """
        return self.collection.with_options(read_preference=read_preference())

    def get_collection(self, name):
        """The pymongo collection ``name`` on the manager's database."""
        return connections[self.db].get_collection(name)

    def from_document(self, document, fields=None):
        """A model instance from a raw document (see ``core.mongo.documents.model_from_document``)."""
        return model_from_document(self.model, document, self.db, fields)
