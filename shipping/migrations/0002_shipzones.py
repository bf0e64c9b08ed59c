"""Seed the default zone: "Rest of world" (every destination) with one "Standard" method
priced by the SHIPPING_BANDS setting, so a shop upgraded to zones charges what it charged
before. Staff add zones and methods in the admin; a shop that already has zones is left alone."""

from django.db import migrations


def seed(apps, schema_editor):
    ShippingZone = apps.get_model("shipping", "ShippingZone")
    ShippingMethod = apps.get_model("shipping", "ShippingMethod")
    if ShippingZone.objects.exists():
        return
    zone = ShippingZone.objects.create(name="Rest of world", countries=[], postcode_prefixes=[],
                                       rest_of_world=True, active=True, position=100)
    ShippingMethod.objects.create(zone=zone, name="Standard", kind="standard", pricing="setting", bands=[],
                                  free_over=None, minimum_order=0, days_min=3, days_max=7, active=True, position=0)


class Migration(migrations.Migration):
    dependencies = [("shipping", "0001_shipzones")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
