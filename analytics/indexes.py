"""The analytics' indexes: ``INDEXES``, on ``events`` and on every ``stats.*`` level, each
``(keys, options)`` as pymongo's ``create_index`` takes them, collected by
``core.mongo.indexes.registry``.

``analytics``' migration 0002 creates them (its own literal copy);
``ensure_indexes`` checks them.
"""

from pymongo import ASCENDING

from .periods import LEVELS

_EVENT_INDEXES = [
    # The rollups' watermark: events recorded since the last run.
    ([("recorded", ASCENDING)], {"name": "recorded"}),
    # Recomputing the hours a run touches.
    ([("ts", ASCENDING)], {"name": "ts"}),
    # The "Hierarchical Aggregation" use case's shard key for events: (userid, ts).
    ([("userid", ASCENDING), ("ts", ASCENDING)], {"name": "userid_ts"}),
    # Imports look their lines up by ref.
    ([("ref", ASCENDING)], {"name": "ref", "sparse": True}),
]
_STATS_INDEXES = [
    # One key's buckets over a period (the dashboard's charts).
    ([("k", ASCENDING), ("d", ASCENDING)], {"name": "key_period"}),
    # A kind's buckets over a period: the best sellers, and the rollups' reads of a window kind by
    # kind (``RollupManager._window``). No index on ``d`` alone (``period`` until migration 0006):
    # every index of a level costs each bucket inserted (local-server difference 23).
    ([("kind", ASCENDING), ("d", ASCENDING)], {"name": "kind_period"}),
]

INDEXES = {"events": _EVENT_INDEXES, **{level.collection: _STATS_INDEXES for level in LEVELS}}


# The sharding plan (core.mongo.sharding, docs/sharding.md): events on (userid, ts), not the
# timestamp alone (every insert would go to the last chunk); each stats level on its _id.
SHARD_KEYS = [("events", {"userid": 1, "ts": 1}, False),
              *[(level.collection, {"_id": 1}, False) for level in LEVELS]]
UNSHARDED = ("stats.progress",)
