"""The analytics indexes: events by recorded, ts, (userid, ts), ref; stats.* by key and period."""

from django.db import migrations


def create_indexes(apps, schema_editor):
    from analytics.indexes import create_analytics_indexes

    create_analytics_indexes(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("analytics", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
