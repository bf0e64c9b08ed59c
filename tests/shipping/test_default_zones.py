"""The default shipping zones (``load_shipping_zones``, shipping/defaults.py): the shop's own
country, the European Union and the rest of world with their methods; idempotent; what staff
changed is kept; an unknown country is refused."""

from io import StringIO
from types import SimpleNamespace

import pytest
from bson import ObjectId
from django.core.management import CommandError, call_command

from orders import pricing
from shipping.models import ShippingMethod, ShippingZone

GB = {"country": "GB", "postcode": "SW1Y 4JH", "region": ""}
DE = {"country": "DE", "postcode": "10117", "region": ""}
US = {"country": "US", "postcode": "10001", "region": "NY"}


def priced(address, weight=200, value=1000):
    fact = SimpleNamespace(price=None, weight=weight, product_id=ObjectId(), product_sku="", product_type="",
                           listed_in=(), tax_class="")
    return pricing.price([{"sku": "A", "qty": 1, "price": value}], {"A": fact},
                         pricing.PricingContext(address=address))


def offered(figures):
    return [(method["name"], method["cents"], method["days_min"], method["days_max"])
            for method in figures.shipping_methods]


def test_three_zones_for_the_shops_country_the_eu_and_the_rest_of_world(settings):
    settings.SHOP_COUNTRY = "GB"
    settings.SHIPPING_BANDS = [(250, 399), (1000, 699), (3000, 999), (None, 1999)]
    out = StringIO()
    call_command("load_shipping_zones", stdout=out)
    assert "Added zone United Kingdom (GB): 3 methods." in out.getvalue()
    assert [zone.name for zone in ShippingZone.objects.order_by("position")] == [
        "United Kingdom", "European Union", "Rest of world"]
    eu = ShippingZone.objects.get(name="European Union")
    assert len(eu.countries) == 27 and "GB" not in eu.countries and "GR" in eu.countries
    # Domestic: the setting's bands, next-day express; the collection is made switched off.
    assert offered(priced(GB)) == [("Standard", 399, 2, 3), ("Express (tracked, next working day)", 899, 1, 1)]
    assert priced(GB, value=5000).shipping == 0  # free from $50
    assert not ShippingMethod.objects.get(name="Collection from the shop").active
    # The EU and the rest of world at their own bands, the zone named on the method.
    assert offered(priced(DE)) == [("Standard", 699, 3, 6), ("Express (tracked)", 1999, 1, 3)]
    assert priced(DE, weight=251).shipping == 1099 and priced(DE, value=10000).shipping == 0
    world = priced(US)
    assert offered(world) == [("Standard", 999, 5, 12), ("Express (tracked)", 2999, 2, 5)]
    assert world.shipping_method["zone"] == "Rest of world" and priced(US, weight=3001).shipping == 3999


def test_a_second_run_changes_nothing_and_staffs_edits_stay(settings):
    settings.SHOP_COUNTRY = "GB"
    call_command("load_shipping_zones", verbosity=0)
    standard = ShippingMethod.objects.get(zone__name="European Union", name="Standard")
    standard.bands = ["*:500"]
    standard.save()
    before = sorted((m.zone.name, m.name, tuple(m.bands)) for m in ShippingMethod.objects.all())
    out = StringIO()
    call_command("load_shipping_zones", stdout=out)
    assert "nothing changed" in out.getvalue()
    assert sorted((m.zone.name, m.name, tuple(m.bands)) for m in ShippingMethod.objects.all()) == before


def test_a_rest_of_world_staff_changed_is_kept(settings):
    world = ShippingZone.objects.get(rest_of_world=True)
    seeded = world.methods.get()
    seeded.free_over = 7500
    seeded.save()
    call_command("load_shipping_zones", verbosity=0)
    assert list(ShippingMethod.objects.filter(zone=world).values_list("name", "pricing", "free_over")) == [
        ("Standard", "setting", 7500)]


def test_the_domestic_zone_follows_the_shops_country(settings):
    settings.SHOP_COUNTRY = "DE"
    call_command("load_shipping_zones", verbosity=0)
    germany = ShippingZone.objects.get(name="Germany")
    assert germany.countries == ["DE"] and priced(DE).shipping_method["zone"] == "Germany"
    eu = ShippingZone.objects.get(name="European Union")
    assert len(eu.countries) == 26 and "DE" not in eu.countries
    assert priced(GB).shipping_method["zone"] == "Rest of world"


def test_an_unknown_country_is_refused_and_nothing_is_made():
    before = ShippingZone.objects.count()
    with pytest.raises(CommandError, match="Unknown country code 'XX'"):
        call_command("load_shipping_zones", country="XX", verbosity=0)
    assert ShippingZone.objects.count() == before
