"""``Product.keywords`` for the storefront search: the field, its value on the
products already stored, and its multikey index (replacing the text index,
which the local server does not have); and plain unique indexes on
``products.sku`` and ``categories.slug`` in place of Django's partial ones,
which no query by SKU or slug could use (see ``core/mongo/schema.py``); the
artist index without the type (``ListingManager.by_artist``)."""

import django_mongodb_backend.fields
from django.db import migrations, models


def fill_and_index(apps, schema_editor):
    from catalog.store.backfills import fill_keywords

    from core.mongo.indexes import make_unique_index_plain

    alias = schema_editor.connection.alias
    fill_keywords(alias)
    products = schema_editor.connection.get_collection("products")
    products.create_index([("keywords", 1)], name="keywords")
    products.create_index([("details.artist", 1), ("details.issue_date", -1)], name="artist_issue_date")
    if "type_artist_issue_date" in products.index_information():
        products.drop_index("type_artist_issue_date")
    make_unique_index_plain(products, "sku")
    make_unique_index_plain(schema_editor.connection.get_collection("categories"), "slug")


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0003_product_title_lower'),
    ]

    operations = [
        migrations.AddField(
            model_name='product',
            name='keywords',
            field=django_mongodb_backend.fields.ArrayField(base_field=models.CharField(max_length=64), blank=True, default=list, editable=False, size=None),
        ),
        migrations.RunPython(fill_and_index, migrations.RunPython.noop),
    ]
