"""``facet_counts``: a category's facet counts per issue decade, kept so that a cold cache reads
them rather than counting its products (``catalog/listings/facet_count_manager.py``). Empty at
first: each category is counted by its first cold read, or at the end of ``populatedb``."""

import django_mongodb_backend.fields
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0014_pct_savings_issue_date_index'),
    ]

    operations = [
        migrations.CreateModel(
            name='FacetCount',
            fields=[
                ('id', models.CharField(db_column='_id', max_length=64, primary_key=True, serialize=False)),
                ('category', django_mongodb_backend.fields.ObjectIdField()),
                ('part', models.CharField(max_length=16)),
                ('stamp', models.CharField(max_length=64)),
                ('total', models.IntegerField(default=0)),
                ('counted_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'facet_counts',
            },
        ),
    ]
