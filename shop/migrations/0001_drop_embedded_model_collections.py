"""Drop the empty collections migrate made for embedded models (core/mongo/embedded.py)."""

from django.db import migrations


def drop_empty(apps, schema_editor):
    from core.mongo.embedded import drop_empty_embedded_collections

    drop_empty_embedded_collections(schema_editor.connection.database)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0006_product_image"),
        ("inventory", "0003_cart_account_and_merge_statuses"),
        ("orders", "0001_orders"),
    ]

    operations = [migrations.RunPython(drop_empty, migrations.RunPython.noop, elidable=True)]
