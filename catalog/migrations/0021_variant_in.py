"""``variant_in`` on every product: ``"<category id>:<code>:<value>"`` of each category it is
listed in (``listed_in``) with each value of its variants' options
(``catalog.products.variants.variant_in``), filled for the products already stored
(``catalog.store.backfills.fill_variant_in``), and the index (``variant_in``,
``details.issue_date`` descending, ``_id``): a category page narrowed by a variant attribute
(``?format=Vinyl``) reads its windows of issue dates on it, about the products it shows,
rather than every product of the category (MongoDB cannot index ``listed_in`` and
``variants.options.<code>`` together: two arrays). The index is created with pymongo's
create_index (this migration's own copy of its spec)."""

import django_mongodb_backend.fields  # noqa: F401
from django.db import migrations, models

INDEXES = {"products": [([("variant_in", 1), ("details.issue_date", -1), ("_id", 1)],
                         {"name": "variant_in_issue_date"})]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


def fill(apps, schema_editor):
    from catalog.store.backfills import fill_variant_in

    fill_variant_in(schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0020_search_summaries'),
    ]

    operations = [
        migrations.AddField(
            model_name='product',
            name='variant_in',
            field=django_mongodb_backend.fields.ArrayField(
                base_field=models.CharField(max_length=400), blank=True, default=list, editable=False, size=None),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunPython(create_indexes, migrations.RunPython.noop),
    ]
