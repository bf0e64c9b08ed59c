"""MongoDB deletes a pending sign-up a week after it was made (a TTL index on ``created_at``;
``accounts/indexes.py``): its link has expired by then. This migration's own copy of the spec."""

from django.db import migrations

INDEXES = {"pending_signups": [([("created_at", 1)],
                                {"name": "pending_signup_expiry", "expireAfterSeconds": 7 * 24 * 60 * 60})]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_pending_signups")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
