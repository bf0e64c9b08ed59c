"""Indexes on the reservations (seed 003) that Django cannot declare: carted.cart_id and
carted.timestamp, created with pymongo's create_index."""

from django.db import migrations


def create_indexes(apps, schema_editor):
    from inventory.indexes import create_inventory_indexes

    create_inventory_indexes(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("inventory", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
