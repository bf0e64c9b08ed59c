"""An index on (``pricing.pct_savings``, ``details.issue_date``): the deals are counted per
saving and issue decade, so that a price edit recounts the products of one saving and one
decade (``ListingManager.savings_counts``). Created with pymongo's create_index (this
migration's own copy of its spec)."""

from django.db import migrations

INDEXES = {"products": [([("pricing.pct_savings", 1), ("details.issue_date", 1)], {"name": "pct_savings_issue_date"})]}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0013_product_type_fields_state")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
