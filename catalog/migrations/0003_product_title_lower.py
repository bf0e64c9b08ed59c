"""``Product.title_lower`` for the prefix search: the field, its value on the
products already stored, and the new seed-style indexes (title_lower, and
type + artist + issue date), created with pymongo's create_index."""

from django.db import migrations, models


def fill_and_index(apps, schema_editor):
    from catalog.indexes import create_catalog_indexes
    from catalog.backfills import fill_title_lower

    alias = schema_editor.connection.alias
    fill_title_lower(alias)
    create_catalog_indexes(alias)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0002_seed_indexes'),
    ]

    operations = [
        migrations.AddField(
            model_name='product',
            name='title_lower',
            field=models.CharField(blank=True, default='', editable=False, max_length=300),
        ),
        migrations.RunPython(fill_and_index, migrations.RunPython.noop),
    ]
