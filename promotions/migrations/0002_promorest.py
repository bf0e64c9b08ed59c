from django.db import migrations, models

#: The ``campaign`` index of ``vouchers``: a campaign's codes, for its report and CSV.
INDEXES = {"vouchers": [([("campaign", 1)], {"name": "campaign"})]}


def _create_indexes(apps, schema_editor):
    from core.mongo.indexes import create_indexes

    create_indexes(schema_editor.connection.alias, INDEXES)


class Migration(migrations.Migration):
    """Issue 43's rest: gift cards sold as a product (the order that bought a card, where its code
    was sent) and the campaign index of the vouchers."""

    dependencies = [
        ('promotions', '0001_promotions'),
    ]

    operations = [
        migrations.AddField(
            model_name='giftcard',
            name='order_number',
            field=models.CharField(blank=True, default='', editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name='giftcard',
            name='sent_to',
            field=models.EmailField(blank=True, default='', editable=False, max_length=254),
        ),
        migrations.RunPython(_create_indexes, migrations.RunPython.noop),
    ]
