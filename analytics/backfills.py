"""Backfills run by the analytics' migrations; ``using`` is the database alias.

``hourly_to_days`` (migration ``0003``): ``stats.hourly`` in its earlier form,
one document per key and hour, regrouped into one document per
key and UTC day holding its hours (``bucketing.day_documents``), the shape
the rollups now write and read. Left as they were, the old documents would
be summed by the daily level beside the day documents of the same day.
"""

from django.db import connections
from pymongo import ReplaceOne

from .bucketing import day_documents, hour_rows
from .periods import period_start
from .pipelines import MEASURES

#: Old documents regrouped per round trip of writes.
BATCH = 1000


def _flush(collection, groups):
    """Write the day documents of ``groups`` (``{(k, day): [old documents]}``, each group whole),
    then delete those old documents: 1 read, 1 ``bulk_write``, 1 ``delete_many``. A day
    document already stored (a run interrupted during the delete) keeps the hours it holds
    that are no longer stored the old way. Returns how many old documents went."""
    buckets = {(d["k"], period_start("hour", d["d"])): [d.get("kind"), d.get("ref"), *(d.get(m, 0) for m in MEASURES)]
               for old in groups.values() for d in old}
    days = [f"{key}|{day:%Y-%m-%dT%H:%M:%SZ}" for key, day in groups]
    for stored in collection.find({"_id": {"$in": days}, "hours": {"$exists": True}}):
        for row in hour_rows(stored):
            buckets.setdefault((stored["k"], row["d"]),
                               [stored.get("kind"), stored.get("ref"), *(row[m] for m in MEASURES)])
    collection.bulk_write([ReplaceOne({"_id": doc["_id"]}, doc, upsert=True) for doc in day_documents(buckets)],
                          ordered=False)
    # An hour at 00:00 had the _id its day document has now: that one was replaced, not deleted.
    written = set(days)
    ids = [d["_id"] for old in groups.values() for d in old]
    collection.delete_many({"_id": {"$in": [i for i in ids if i not in written]}})
    return len(ids)


def hourly_to_days(using="default"):
    """Regroup ``stats.hourly``'s per-hour documents (no ``hours`` field) into day documents.

    Streams the old documents in ``_id`` order (``"<k>|<hour>"``: a key's
    hours of a day come together, no sort in memory) and, about ``BATCH``
    at a time and whole (key, day) groups only, upserts each day document
    (``ReplaceOne`` on its ``_id``) before deleting the hours it replaces.
    Safe to run again after a crash: a group whose day document was written
    but whose hours were not all deleted is written again from those hours
    and the day document's others, the same. Returns the
    number of old documents regrouped (0 when there are none).
    """
    collection = connections[using].get_collection("stats.hourly")
    cursor = collection.find({"hours": {"$exists": False}}).sort("_id", 1).batch_size(BATCH)
    moved, groups, pending = 0, {}, 0
    for document in cursor:
        group = (document["k"], period_start("day", document["d"]))
        if group not in groups and pending >= BATCH:
            moved += _flush(collection, groups)
            groups, pending = {}, 0
        groups.setdefault(group, []).append(document)
        pending += 1
    if groups:
        moved += _flush(collection, groups)
    return moved
