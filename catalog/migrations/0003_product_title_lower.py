"""``Product.title_lower`` for the prefix search: the field, its value on the
products already stored, and the new Product Catalog indexes (title_lower, and
type + artist + issue date), created with pymongo's create_index (this
migration's own copy of their specs; 0004 replaces the type + artist one)."""

from django.db import migrations, models

INDEXES = {
    "products": [
        ([("type", 1), ("details.artist", 1), ("details.issue_date", -1)], {"name": "type_artist_issue_date"}),
        ([("title_lower", 1), ("_id", 1)], {"name": "title_lower"}),
    ],
}


def fill_and_index(apps, schema_editor):
    from catalog.store.backfills import fill_title_lower
    from core.mongo.indexes import create_indexes

    alias = schema_editor.connection.alias
    fill_title_lower(alias)
    create_indexes(alias, INDEXES)


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
