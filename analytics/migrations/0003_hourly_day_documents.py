"""``stats.hourly`` as one document per key and UTC day holding its hours: the
per-hour documents already stored regrouped (``analytics.backfills.hourly_to_days``)."""

from django.db import migrations


def regroup(apps, schema_editor):
    from analytics.backfills import hourly_to_days

    hourly_to_days(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("analytics", "0002_indexes")]

    operations = [migrations.RunPython(regroup, migrations.RunPython.noop)]
