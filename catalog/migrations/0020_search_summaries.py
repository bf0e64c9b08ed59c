"""The searches' kept summaries (``search_summaries``, ``catalog/listings/search_summary.py``):
a search's first visit reads its count, facet counts and best matches from one document.
Empty at first: each search keeps its own on its first visit, and ``populatedb`` keeps every
word's that at least 100 products hold."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0019_savings_counts_newest_windows'),
    ]

    operations = [
        migrations.CreateModel(
            name='SearchSummary',
            fields=[
                ('id', models.CharField(db_column='_id', max_length=700, primary_key=True, serialize=False)),
                ('stamp', models.CharField(max_length=64)),
                ('total', models.IntegerField(default=0)),
                ('counted_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'db_table': 'search_summaries',
            },
        ),
    ]
