"""``order_counts``: a category's products counted along its sorts by price and by title, so that
a page sorted so reads only the products it shows (``catalog/listings/order_count_manager.py``);
and the indexes those pages read from, ``listed_in`` then the sorted field. The counts of the
products already stored are written (one pass over every product)."""

import django_mongodb_backend.fields
from django.db import migrations, models

INDEXES = {"products": [
    ([("listed_in", 1), ("pricing.retail", 1), ("_id", 1)], {"name": "listed_in_retail"}),
    ([("listed_in", 1), ("title", 1), ("_id", 1)], {"name": "listed_in_title"}),
]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


def count_stored(apps, schema_editor):
    """The order counts of the products already stored: one pass over every product."""
    from catalog.models import OrderCount

    OrderCount.objects.db_manager(schema_editor.connection.alias).recount_all()


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0017_variantcards'),
    ]

    operations = [
        migrations.CreateModel(
            name='OrderCount',
            fields=[
                ('id', models.CharField(db_column='_id', max_length=64, primary_key=True, serialize=False)),
                ('category', django_mongodb_backend.fields.ObjectIdField()),
                ('kind', models.CharField(max_length=16)),
                ('relisted', models.CharField(max_length=64)),
                ('counted_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'order_counts',
            },
        ),
        migrations.RunPython(create_indexes, migrations.RunPython.noop),
        migrations.RunPython(count_stored, migrations.RunPython.noop),
    ]
