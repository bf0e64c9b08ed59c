"""An index on the units available (``qty``): the SKUs sold out (``qty`` 0) are one index range,
read by the facets' "in stock" on category and search pages (``Inventory.objects.skus_available``);
without it the local server decodes every stock document (about 3 s for 100,000 SKUs).
Created with pymongo's create_index (this migration's own copy of its spec)."""

from django.db import migrations

INDEXES = {"inventory": [([("qty", 1)], {"name": "qty"})]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("inventory", "0006_cart_created_at")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
