"""Indexes on the reservations ("Inventory Management" use case) that Django cannot declare: carted.cart_id and
carted.timestamp, created with pymongo's create_index (this migration's own copy of
their specs)."""

from django.db import migrations

INDEXES = {
    "inventory": [
        ([("carted.cart_id", 1)], {"name": "carted_cart_id"}),
        ([("carted.timestamp", 1)], {"name": "carted_timestamp"}),
    ],
}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("inventory", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
