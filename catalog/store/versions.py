"""``CatalogVersion.objects``: the versions of the parts of the catalog that catalog writes change.

The storefront caches what it reads of categories and products (Django's
cache framework, ``catalog/store/cache.py``) under keys that carry the versions
of what each read shows (its *scope*: ``category:<id>``, ``product:<sku>``,
``navigation``...), so that a cache in one process never serves what
another process has changed since: every write to ``categories`` or
``products`` bumps the versions of what it changed once it is done
(``catalog/store/writes.py``), and each storefront request reads the versions it
needs once, together (one ``find`` on the unique ``name`` index).

One document per scope, ``{name: <scope name>, token: <32 hex characters>}``;
a scope never bumped has no document. The epoch (``name: "catalog"``) is
in every key and is created with a random token when missing: a database
emptied and filled again (a test's flush, a restore) starts from keys no
cache has seen. Tokens are random values rather than counters for the same
reason.
"""

import uuid

from django.db import models
from pymongo import InsertOne, UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

from core.mongo import only_duplicate_keys
from core.mongo.collections import MongoCollectionMixin

from catalog.products.keywords import prefix_range
from catalog.store.cache import EPOCH, forget_version

#: The ``name`` of the epoch's version document (kept for callers of the single version).
CATALOG = EPOCH


def _new_token():
    return uuid.uuid4().hex


class CatalogVersionManager(MongoCollectionMixin, models.Manager):
    """Reads and changes the catalog's versions (the ``catalog_versions`` collection)."""

    def current(self):
        """The epoch's token (str): one read from the primary (a secondary might lag behind
        a write that has bumped it). The first read of an empty database creates the
        document (two more round trips, once)."""
        return self.tokens([EPOCH])[EPOCH]

    def tokens(self, names):
        """``{name: token}`` of the version documents among ``names`` (a list of scope names)
        that exist, the epoch always: one read from the primary; when the epoch is missing
        (an empty database), two more round trips, once."""
        names = sorted({*names, EPOCH})
        found = {d["name"]: d["token"] for d in self.collection.find({"name": {"$in": names}},
                                                                     {"name": 1, "token": 1})}
        if EPOCH not in found:
            found[EPOCH] = self._create_epoch()
        return found

    def family(self, prefix):
        """``{name: token}`` of every version document whose name starts with ``prefix`` (a
        non-empty str, e.g. ``"prices:<id>:"``: the price bands of a category): one read from
        the primary, a range on the unique ``name`` index (SecantusDB serves no ``$regex``
        from an index: docs/local-server-differences.md, local-server difference 12). A scope
        missing from it has never been bumped (``cache.UNSET``)."""
        prefix = str(prefix)
        return {d["name"]: d["token"] for d in self.collection.find({"name": prefix_range(prefix)},
                                                                    {"name": 1, "token": 1})}

    def _create_epoch(self):
        # SecantusDB difference: when several find_one_and_update(upsert=True) race to
        # (docs/local-server-differences.md: local-server difference 10)
        # create one missing document, the losers get None back instead of the
        # document. So the document is created by a plain upsert and read again;
        # a real MongoDB evaluates this form identically.
        try:
            self.collection.update_one({"name": EPOCH}, {"$setOnInsert": {"token": _new_token()}}, upsert=True)
        except DuplicateKeyError:  # another process created it at the same moment
            pass
        return self.collection.find_one({"name": EPOCH}, {"token": 1})["token"]

    def set_token(self, name, token):
        """Give scope ``name`` the token ``token`` (str) its writer chose, e.g. the offers' (a
        random part and what it says of them, ``promotions.labels``). One write (two when a
        first write of the scope races another)."""
        forget_version()
        try:
            self.collection.update_one({"name": name}, {"$set": {"token": str(token)}}, upsert=True)
        except DuplicateKeyError:  # created by another process at the same moment
            self.collection.update_one({"name": name}, {"$set": {"token": str(token)}})

    def bump(self, names=(EPOCH,)):
        """Give the scopes ``names`` (scope names, see ``catalog/store/cache.py``; default the epoch:
        every cached read) new tokens: one write (a ``bulk_write`` of upserts), none for no
        names. Call it *after* the write to ``categories`` or ``products`` it follows, so
        that a request that reads a new token reads the new data too. Returns
        ``{name: new token}``."""
        forget_version()
        tokens = {name: _new_token() for name in sorted(set(names))}
        if not tokens:
            return tokens
        writes = [UpdateOne({"name": n}, {"$set": {"token": t}}, upsert=True) for n, t in tokens.items()]
        if EPOCH not in tokens:  # the epoch made with the first bump of a new database, unchanged after
            writes.append(UpdateOne({"name": EPOCH}, {"$setOnInsert": {"token": _new_token()}}, upsert=True))
        try:
            self.collection.bulk_write(writes, ordered=False)
        except BulkWriteError as error:  # two first bumps of one scope at once: it exists now
            if not only_duplicate_keys(error):
                raise
            order = list(tokens)
            failed = [order[e["index"]] for e in error.details.get("writeErrors", []) if e["index"] < len(order)]
            if failed:
                self.collection.bulk_write([UpdateOne({"name": n}, {"$set": {"token": tokens[n]}})
                                            for n in failed], ordered=False)
        return tokens

    def claim(self, tokens):
        """Give each scope of ``tokens`` (``{name: its token as read, or None: never bumped}``) a
        new token only if it still has the one read (a compare-and-set each; a scope never
        bumped is created): one write. Returns ``{name: new token}`` when every one was still
        as read, else None (another writer bumped one since: the caller must not assume what
        changed in between; the tokens it did set are plain bumps)."""
        forget_version()
        claimed = {name: _new_token() for name in tokens}
        writes = [UpdateOne({"name": n, "token": t}, {"$set": {"token": claimed[n]}}) if t is not None
                  else InsertOne({"name": n, "token": claimed[n]}) for n, t in sorted(tokens.items())]
        if not writes:
            return claimed
        try:
            result = self.collection.bulk_write(writes, ordered=False)
        except BulkWriteError as error:  # a scope created by another writer meanwhile
            if not only_duplicate_keys(error):
                raise
            return None
        return claimed if result.modified_count + result.inserted_count == len(writes) else None
