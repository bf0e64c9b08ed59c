from django.db import migrations, models


class Migration(migrations.Migration):
    """A sale event's share of its order's discounts (issue 43): the rollups' ``discounts``."""

    dependencies = [
        ('analytics', '0004_aftersale'),
    ]

    operations = [
        migrations.AddField(
            model_name='event',
            name='discount',
            field=models.IntegerField(default=0, help_text="cents: a sale line's share of its order's discounts"),
        ),
    ]
