from django.db import migrations

#: The ``campaign`` index of ``vouchers``: a campaign's codes, for its report and CSV.
INDEXES = {"vouchers": [([("campaign", 1)], {"name": "campaign"})]}


def _create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):

    dependencies = [
        ('promotions', '0001_promotions'),
    ]

    operations = [migrations.RunPython(_create_indexes, migrations.RunPython.noop)]
