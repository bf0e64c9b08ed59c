"""A variant's own image (``Variant.image``: a path in the default storage, "" for none), shown
as the product page's cover while the variant is chosen. State only: the variants are
subdocuments of products, and a stored variant without the field reads as "" (none)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0016_taxship'),
    ]

    operations = [
        migrations.AddField(
            model_name='variant',
            name='image',
            field=models.CharField(blank=True, default='', max_length=255),
        ),
    ]
