"""``NewestWindow.objects``: where the last read of a list of newest products found its last
product (``newest_windows``, one small document per list), so that the next cold read of it
starts from a window of issue dates that holds about what it shows.

``{_id: key, since: issue date, kept_at}``. ``key`` names the list (its filter and its
slice: ``ListingManager.newest_page``); ``since`` is the issue date of the last product the list showed
when it was read. Not a figure shown: a hint for ``ListingManager.newest_page``, which
reads the products issued since then first and keeps that window only when it holds the
whole page (everything outside it was issued earlier), else reads as it would without
the hint. A hint gone stale (products added since, or moved, or deleted) costs a wider
or a second read, never a wrong list, and the read that finds it stale keeps the new one.
No write of the catalog touches these: a list that is read keeps its own (one write, and
only when its last product's date changed).
"""

from django.db import models
from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo.collections import MongoCollectionMixin


class NewestWindowManager(MongoCollectionMixin, models.Manager):
    """The kept windows of the lists of newest products (see the module docstring)."""

    def since(self, key):
        """The issue date (a naive UTC datetime) the list ``key`` last ended at, or None: one
        read by ``_id``."""
        document = self.collection.find_one({"_id": str(key)}, {"since": 1})
        return None if document is None else document.get("since")

    def keep(self, key, since):
        """Keep ``since`` (a datetime) as where the list ``key`` ends: one write."""
        try:
            self.collection.update_one({"_id": str(key)}, {"$set": {"since": since, "kept_at": clock.now()}},
                                       upsert=True)
        except DuplicateKeyError:  # kept by another reader at the same moment
            pass
