"""The analytics' indexes: on ``events`` and on every ``stats.*`` level, each ``(keys, options)``
as pymongo's ``create_index`` takes them."""

from django.db import connections
from pymongo import ASCENDING

from .periods import LEVELS

EVENT_INDEXES = [
    # The rollups' watermark: events recorded since the last run.
    ([("recorded", ASCENDING)], {"name": "recorded"}),
    # Recomputing the hours a run touches.
    ([("ts", ASCENDING)], {"name": "ts"}),
    # Seed 001's shard key for events: (userid, ts).
    ([("userid", ASCENDING), ("ts", ASCENDING)], {"name": "userid_ts"}),
    # Imports look their lines up by ref.
    ([("ref", ASCENDING)], {"name": "ref", "sparse": True}),
]
STATS_INDEXES = [
    ([("k", ASCENDING), ("d", ASCENDING)], {"name": "key_period"}),
    ([("kind", ASCENDING), ("d", ASCENDING)], {"name": "kind_period"}),
    ([("d", ASCENDING)], {"name": "period"}),
]


def create_analytics_indexes(using="default"):
    """Create the indexes of ``events`` and every ``stats.*`` level (idempotent).

    Returns the list of index names. Called by the analytics migration.
    """
    connection = connections[using]
    names = []
    for keys, options in EVENT_INDEXES:
        names.append(connection.get_collection("events").create_index(keys, **options))
    for level in LEVELS:
        for keys, options in STATS_INDEXES:
            names.append(connection.get_collection(level.collection).create_index(keys, **options))
    return names
