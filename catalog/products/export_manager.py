"""``Product.exports`` (``ProductExportManager``): the products an export writes out
(``catalog/transfer/exports.py``, ``export_products``), streamed by SKU."""

from django.db import models
from pymongo import ASCENDING

from core.mongo.collections import MongoCollectionMixin


class ProductExportManager(MongoCollectionMixin, models.Manager):
    """``Product.exports``: the query of an export and its documents, a batch per round trip."""

    def for_export(self, match, batch_size=1000):
        """The product documents of ``match`` (a query this manager built: ``export_match``),
        by SKU, streamed a batch of ``batch_size`` per round trip."""
        return self.read_collection.find(match, batch_size=batch_size).sort("sku", ASCENDING)

    def export_match(self, category_id=None, type_name=None):
        """The query of the products listed in ``category_id`` (and below it) and/or of type
        ``type_name``, for ``for_export``."""
        match = {}
        if category_id is not None:
            match["listed_in"] = category_id
        if type_name is not None:
            match["type"] = str(type_name)
        return match
