"""The rollup levels without their index on ``d`` alone (``period``): the rollups read a window
kind by kind on ``kind_period`` (``RollupManager._window``), and on the local server every
index of a level costs each bucket inserted (docs/local-server-differences.md: difference 23)."""

from django.db import migrations

LEVEL_COLLECTIONS = ("stats.hourly", "stats.daily", "stats.weekly", "stats.monthly", "stats.yearly")


def drop_period(apps, schema_editor):
    for name in LEVEL_COLLECTIONS:
        collection = schema_editor.connection.get_collection(name)
        if "period" in collection.index_information():
            collection.drop_index("period")


def create_period(apps, schema_editor):
    for name in LEVEL_COLLECTIONS:
        schema_editor.connection.get_collection(name).create_index([("d", 1)], name="period")


class Migration(migrations.Migration):
    dependencies = [("analytics", "0005_promorest")]

    operations = [migrations.RunPython(drop_period, create_period)]
