"""django-mongodb-backend's schema editor, with plain unique indexes for required fields.

django-mongodb-backend makes every unique index partial
(``partialFilterExpression: {field: {$type: ...}}``), so that several
documents may lack the field, as SQL allows several NULLs. A query such as
``{"sku": "CHK-0001"}`` or a ``$lookup`` on ``sku`` does not state that
filter, so no server may use such an index for it: the local server scans
the collection (every product page and every rollup's join scanned all
products), and MongoDB only uses a partial index for queries that imply its
filter. A field that cannot be null (``sku``, ``slug``, ``username``) has no
documents to leave out, so its unique index is created plain, and every
server uses it for equality and joins.
"""

from django_mongodb_backend.schema import DatabaseSchemaEditor as MongoSchemaEditor
from django_mongodb_backend.schema import ignore_embedded_models
from pymongo import ASCENDING

from core.mongo.embedded import is_embedded


class DatabaseSchemaEditor(MongoSchemaEditor):
    def create_model(self, model):
        """Create the model's collection and indexes; none for an embedded model, even one
        whose migration does not name ``EmbeddedModel`` among its bases (core/mongo/embedded.py)."""
        if is_embedded(model):
            return
        super().create_model(model)

    @ignore_embedded_models
    def add_index(self, model, index, *, field=None, unique=False, column_prefix="", parent_model=None):
        if unique and field is not None and not field.null and not index.condition:
            collection = self.get_collection((parent_model or model)._meta.db_table)
            collection.create_index([(column_prefix + field.column, ASCENDING)], name=index.name,
                                    unique=True)
            return
        super().add_index(model, index, field=field, unique=unique, column_prefix=column_prefix,
                          parent_model=parent_model)
