# The expiry's maximum-age pass reads the carts touched within the timeout on
# ``status_last_modified`` instead: on the local server each index of ``carts`` costs every
# cart an expiry writes (docs/local-server-differences.md, difference 23).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0007_inventory_qty_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='cart',
            name='status_created_at',
        ),
    ]
