"""``Category.position``: each category's place among its siblings.

The categories already stored get the positions of today's order (by name,
case-insensitively, within each parent), so the storefront looks the same
until staff reorder them.
"""

from django.db import migrations, models


def number_siblings(apps, schema_editor):
    from catalog.store.backfills import number_siblings_by_name

    number_siblings_by_name(schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0004_product_keywords'),
    ]

    operations = [
        migrations.AddField(
            model_name='category',
            name='position',
            field=models.IntegerField(default=0, editable=False),
        ),
        migrations.RunPython(number_siblings, migrations.RunPython.noop),
    ]
