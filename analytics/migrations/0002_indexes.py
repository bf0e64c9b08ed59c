"""The analytics indexes: events by recorded, ts, (userid, ts), ref; stats.* by key and period.

This migration's own copy of their specs, and of the rollup levels' collection names."""

from django.db import migrations

STATS_INDEXES = [
    ([("k", 1), ("d", 1)], {"name": "key_period"}),
    ([("kind", 1), ("d", 1)], {"name": "kind_period"}),
    ([("d", 1)], {"name": "period"}),
]
INDEXES = {
    "events": [
        ([("recorded", 1)], {"name": "recorded"}),
        ([("ts", 1)], {"name": "ts"}),
        ([("userid", 1), ("ts", 1)], {"name": "userid_ts"}),
        ([("ref", 1)], {"name": "ref", "sparse": True}),
    ],
    "stats.hourly": STATS_INDEXES,
    "stats.daily": STATS_INDEXES,
    "stats.weekly": STATS_INDEXES,
    "stats.monthly": STATS_INDEXES,
    "stats.yearly": STATS_INDEXES,
}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("analytics", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
