"""A Django cache backend for counters, kept in a MongoDB collection: the rate limits' store.

django-ratelimit counts each limit with ``cache.add`` then ``cache.incr``. Kept in the
catalog's per-process memory cache (least recently used out, 20,000 entries), the
counts could be flushed by about 5,000 distinct searches, and each gunicorn worker
counted apart. Here every worker shares one count per key, nothing else writes to
the collection, so nothing evicts a count before its window ends.

Each key is one document ``{_id: key, n: count, expires: UTC datetime}``:

* ``add`` inserts it; over an expired document it resets it with one conditional
  write (``expires <= now``), so of two concurrent adds one wins;
* ``incr`` is one ``$inc`` conditional on the document being live, then one read of
  the count (2 round trips: ``find_one_and_update`` would do it in one, but the local
  server reads the whole collection for every ``findAndModify``; local-server
  difference D1, docs/local-server.md). Under concurrency the count read may include
  others' increments made in between: a limit may then refuse at most one request
  early, never let one more through;
* the TTL index ``rate_limit_expiry`` (``core/indexes.py``) lets MongoDB delete
  expired documents; an expired document left is treated as missing.

``settings.CACHES["ratelimit"] = {"BACKEND": "core.mongo.countcache.MongoCountCache",
"LOCATION": "rate_limits"}``, named by ``RATELIMIT_USE_CACHE``.
"""

from datetime import timedelta

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from pymongo.errors import DuplicateKeyError

from core import clock

from . import get_collection


class MongoCountCache(BaseCache):
    """Counters with a lifetime in the collection named by ``LOCATION`` (see the module)."""

    def __init__(self, location, params):
        super().__init__(params)
        self.collection_name = location or "rate_limits"

    @property
    def collection(self):
        return get_collection(self.collection_name)

    def _expiry(self, timeout):
        """When a value stored now with ``timeout`` seconds (DEFAULT_TIMEOUT: the cache's; None:
        a year) stops counting (a UTC datetime)."""
        seconds = self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout
        return clock.now() + timedelta(seconds=365 * 24 * 3600 if seconds is None else seconds)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """Store ``value`` under ``key`` unless a live one is there; True when stored."""
        key = self.make_and_validate_key(key, version=version)
        document = {"n": value, "expires": self._expiry(timeout)}
        try:
            self.collection.insert_one({"_id": key, **document})
            return True
        except DuplicateKeyError:
            reset = self.collection.update_one({"_id": key, "expires": {"$lte": clock.now()}}, {"$set": document})
            return reset.modified_count == 1

    def get(self, key, default=None, version=None):
        """The live value of ``key``, else ``default``. One read."""
        key = self.make_and_validate_key(key, version=version)
        document = self.collection.find_one({"_id": key, "expires": {"$gt": clock.now()}}, {"n": 1})
        return default if document is None else document["n"]

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """Store ``value`` under ``key`` (an upsert)."""
        key = self.make_and_validate_key(key, version=version)
        self.collection.update_one({"_id": key}, {"$set": {"n": value, "expires": self._expiry(timeout)}},
                                   upsert=True)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        """Give a live ``key`` a new lifetime; True when it was there."""
        key = self.make_and_validate_key(key, version=version)
        return self.collection.update_one({"_id": key, "expires": {"$gt": clock.now()}},
                                          {"$set": {"expires": self._expiry(timeout)}}).matched_count == 1

    def incr(self, key, delta=1, version=None):
        """Add ``delta`` to the live count of ``key`` and return it; ``ValueError`` when there is
        none (as Django's other caches do)."""
        key = self.make_and_validate_key(key, version=version)
        now = clock.now()
        if not self.collection.update_one({"_id": key, "expires": {"$gt": now}}, {"$inc": {"n": delta}}).matched_count:
            raise ValueError(f"Key {key!r} not found.")
        document = self.collection.find_one({"_id": key}, {"n": 1})
        if document is None:
            raise ValueError(f"Key {key!r} not found.")
        return document["n"]

    def delete(self, key, version=None):
        """Remove ``key``; True when it was there."""
        key = self.make_and_validate_key(key, version=version)
        return self.collection.delete_one({"_id": key}).deleted_count == 1

    def has_key(self, key, version=None):
        return self.get(key, None, version=version) is not None

    def clear(self):
        """Remove every count."""
        self.collection.delete_many({})
