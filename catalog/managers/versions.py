"""``CatalogVersion.objects``: the catalog's version, which every catalog write changes.

The storefront caches what it reads of categories and products (Django's
cache framework, ``catalog/cache.py``) under keys that carry this
version, so that a cache in one process never serves what another process
has changed since: every write to ``categories`` or ``products`` (the
managers', the admin's ORM saves and deletes, the imports) calls ``bump``
once it is done, and each storefront request reads the version once.

One document, ``{name: "catalog", token: <32 hex characters>}``. The token
is a random value rather than a counter: a database emptied and filled
again (a test's flush, a restore) starts from a token no cache has seen.
"""

import uuid

from django.db import models
from pymongo.errors import DuplicateKeyError

from core.mongo.collections import MongoCollectionMixin

from ..cache import forget_version

#: The ``name`` of the catalog's version document.
CATALOG = "catalog"


def _new_token():
    return uuid.uuid4().hex


class CatalogVersionManager(MongoCollectionMixin, models.Manager):
    """Reads and changes the catalog's version (the ``catalog_versions`` collection)."""

    def current(self):
        """The catalog's version token (str): one read from the primary (a secondary might
        lag behind a write that has bumped it). The first read of an empty database
        creates the document (two more round trips, once)."""
        document = self.collection.find_one({"name": CATALOG}, {"token": 1})
        if document is not None:
            return document["token"]
        # SecantusDB difference: when several find_one_and_update(upsert=True) race to
        # create one missing document, the losers get None back instead of the
        # document. So the document is created by a plain upsert and read again;
        # a real MongoDB evaluates this form identically.
        try:
            self.collection.update_one({"name": CATALOG}, {"$setOnInsert": {"token": _new_token()}}, upsert=True)
        except DuplicateKeyError:  # another process created it at the same moment
            pass
        return self.collection.find_one({"name": CATALOG}, {"token": 1})["token"]

    def bump(self):
        """Give the catalog a new version: one write (an upsert). Call it *after* a write to
        ``categories`` or ``products`` has been made, so that a request that reads the new
        version reads the new data too. Returns the new token (str)."""
        token = _new_token()
        forget_version()
        try:
            self.collection.update_one({"name": CATALOG}, {"$set": {"token": token}}, upsert=True)
        except DuplicateKeyError:  # two first bumps at once: the document exists now
            self.collection.update_one({"name": CATALOG}, {"$set": {"token": token}})
        return token
