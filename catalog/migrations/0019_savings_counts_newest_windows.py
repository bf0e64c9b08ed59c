"""Where the lists of newest products last ended (``newest_windows``,
``catalog/listings/window_manager.py``: the home page's newest read from about its own window
of issue dates); the deals' counts kept per saving (``savings_counts``, ``catalog/listings/savings_count_manager.py``)
and an index on (``pricing.pct_savings``, ``_id``): a deals page reads its products of one saving
from a window of ids, biggest saving first, rather than every product of that saving
(``ListingManager.deals_page``). Empty at first: each saving is counted by the first deals
page that needs it, or at the end of ``populatedb`` and ``load_catalog``. The index is created
with pymongo's create_index (this migration's own copy of its spec)."""

import django_mongodb_backend.fields
from django.db import migrations, models

INDEXES = {"products": [([("pricing.pct_savings", 1), ("_id", 1)], {"name": "pct_savings_id"})]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0018_order_counts'),
    ]

    operations = [
        migrations.CreateModel(
            name='SavingsCount',
            fields=[
                ('id', models.IntegerField(db_column='_id', primary_key=True, serialize=False)),
                ('listed', models.IntegerField(default=0)),
                ('stamp', models.CharField(max_length=64)),
                ('first', django_mongodb_backend.fields.ObjectIdField(blank=True, null=True)),
                ('last', django_mongodb_backend.fields.ObjectIdField(blank=True, null=True)),
                ('counted_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'savings_counts',
            },
        ),
        migrations.CreateModel(
            name='NewestWindow',
            fields=[
                ('id', models.CharField(db_column='_id', max_length=64, primary_key=True, serialize=False)),
                ('since', models.DateTimeField(blank=True, null=True)),
                ('kept_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'newest_windows',
            },
        ),
        migrations.RunPython(create_indexes, migrations.RunPython.noop),
    ]
