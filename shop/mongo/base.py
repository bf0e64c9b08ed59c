"""The shop's Django database backend: django-mongodb-backend on either engine.

``ENGINE = "shop.mongo"`` in settings. With a ``HOST`` (the ``MONGODB_URI``
setting) it is django-mongodb-backend on a real MongoDB server, with the
shop's command counter attached to the client. With no ``HOST`` it runs the
same backend on the embedded engine (``shop.mongo.embedded``).
"""

from django.utils.functional import cached_property
from django_mongodb_backend.base import DatabaseWrapper as MongoDatabaseWrapper
from django_mongodb_backend.features import DatabaseFeatures as MongoDatabaseFeatures

from .counter import CommandCounter
from .embedded import EmbeddedClient, apply_compatibility_fixes


class DatabaseFeatures(MongoDatabaseFeatures):
    @cached_property
    def _supports_transactions(self):
        # The embedded engine has no sessions; a real server answers `hello`.
        if self.connection.is_embedded:
            return False
        return super()._supports_transactions


class DatabaseWrapper(MongoDatabaseWrapper):
    """django-mongodb-backend's wrapper, on a real server or on the embedded engine."""

    features_class = DatabaseFeatures

    @property
    def is_embedded(self):
        """True when no server is configured and the embedded engine serves the data."""
        return not self.settings_dict["HOST"]

    def get_connection_params(self):
        params = super().get_connection_params()
        if not self.is_embedded:
            params["event_listeners"] = [*params.get("event_listeners", ()), CommandCounter()]
        return params

    def get_new_connection(self, conn_params):
        if not self.is_embedded:
            return super().get_new_connection(conn_params)
        apply_compatibility_fixes()
        if self.alias not in self._connection_pools:
            self._connection_pools.setdefault(self.alias, EmbeddedClient())
        return self._connection_pools[self.alias]

    def get_collection(self, name, **kwargs):
        if not self.is_embedded:
            return super().get_collection(name, **kwargs)
        # pymongo's Collection(db, name) cannot wrap a mongomock database.
        collection = self.database[name]
        if self.queries_logged:
            from django_mongodb_backend.utils import OperationDebugWrapper

            collection = OperationDebugWrapper(self, collection)
        return collection
