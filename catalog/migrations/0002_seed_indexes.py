"""The seed indexes Django cannot declare: ancestors._id and the compound
indexes over embedded fields (seed 001), created with pymongo's create_index."""

from django.db import migrations


def create_indexes(apps, schema_editor):
    from catalog.indexes import create_catalog_indexes

    create_catalog_indexes(schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
