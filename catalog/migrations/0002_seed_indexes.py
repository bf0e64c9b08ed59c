"""The seed indexes Django cannot declare: ancestors._id and the compound
indexes over embedded fields ("Product Catalog" use case), created with pymongo's create_index.

The specs are this migration's own copy, as they were when it was written
(later migrations add and drop indexes): ``catalog/store/indexes.py`` may change,
this migration does not."""

from django.db import migrations

INDEXES = {
    "categories": [
        ([("ancestors._id", 1)], {"name": "ancestors_id"}),
    ],
    "products": [
        ([("categories", 1)], {"name": "categories"}),
        ([("type", 1), ("details.genre", 1), ("details.issue_date", -1)], {"name": "type_genre_issue_date"}),
        ([("pricing.pct_savings", 1)], {"name": "pct_savings"}),
        ([("type", 1), ("details.actor", 1), ("details.issue_date", -1)], {"name": "type_actor_issue_date"}),
        ([("type", 1), ("details.issue_date", -1), ("title", 1)], {"name": "type_issue_date_title"}),
        ([("details.issue_date", -1)], {"name": "issue_date"}),
        ([("pricing.retail", 1)], {"name": "retail_price"}),
    ],
}


def create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, migrations.RunPython.noop)]
