"""The default shipping zones of a new shop: domestic (the shop's own country, ``SHOP_COUNTRY``),
the European Union, and the rest of world, each with a standard and an express method, and a
collection from the shop at home (made switched off: a shop with a counter switches it on).

``load_defaults()`` is run by ``manage.py load_shipping_zones`` and by the quick start with the
demo catalog (``shop/startup.py``). The migration ``shipping/0002`` seeds only the rest of
world priced by the ``SHIPPING_BANDS`` setting (a shop upgraded to zones charges what it
charged before); this adds the two other zones and, while the rest of world still holds that
seeded method alone, gives it its own bands. What staff made or changed is never touched: a
zone of the same name is left as it is. Prices are integer cents, bands ``up-to:cents`` of
the order's weight in grams (``shipping.models.parse_bands``); delivery in working days.
"""

from django.conf import settings
from django_countries import countries

from .models import BY_SETTING, BY_WEIGHT, COLLECTION, EXPRESS, STANDARD, ShippingMethod, ShippingZone

#: The member states of the European Union (ISO 3166-1 alpha-2; Greece is GR).
EU = ("AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT",
      "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK")

#: Each zone's methods: (name, kind, bands or None for the SHIPPING_BANDS setting, free over
#: cents or None, days_min, days_max, active).
DOMESTIC_METHODS = [
    ("Standard", STANDARD, None, 5000, 2, 3, True),  # the SHIPPING_BANDS setting; free from $50
    ("Express (tracked, next working day)", EXPRESS, ["1000:899", "3000:1299", "*:2499"], None, 1, 1, True),
    ("Collection from the shop", COLLECTION, ["*:0"], None, 0, 1, False),
]
EU_METHODS = [
    ("Standard", STANDARD, ["250:699", "1000:1099", "3000:1699", "*:2999"], 10000, 3, 6, True),
    ("Express (tracked)", EXPRESS, ["1000:1999", "3000:2999", "*:4999"], None, 1, 3, True),
]
WORLD_METHODS = [
    ("Standard", STANDARD, ["250:999", "1000:1599", "3000:2499", "*:3999"], None, 5, 12, True),
    ("Express (tracked)", EXPRESS, ["1000:2999", "3000:4499", "*:6999"], None, 2, 5, True),
]
REST_OF_WORLD = "Rest of world"


def _methods(zone, specs):
    for position, (name, kind, bands, free_over, days_min, days_max, active) in enumerate(specs):
        method = ShippingMethod(zone=zone, name=name, kind=kind, pricing=BY_SETTING if bands is None else BY_WEIGHT,
                                bands=bands or [], free_over=free_over, minimum_order=0, days_min=days_min,
                                days_max=days_max, active=active, position=position)
        method.full_clean()
        method.save()


def _zone(name, codes, position, specs):
    """Make zone ``name`` over ``codes`` with the methods ``specs``; None when a zone of that
    name exists already (kept as it is)."""
    if ShippingZone.objects.filter(name=name).exists():
        return None
    zone = ShippingZone(name=name, countries=list(codes), postcode_prefixes=[], rest_of_world=False,
                        active=True, position=position)
    zone.full_clean()
    zone.save()
    _methods(zone, specs)
    return zone


def _is_seeded(zone):
    """True when the rest-of-world ``zone`` holds only the method migration 0002 seeded
    ("Standard", priced by the setting, no threshold nor minimum), or no method at all."""
    methods = list(zone.methods.all())
    if not methods:  # a run stopped between the seeded method's removal and the new ones
        return True
    return (len(methods) == 1 and methods[0].name == "Standard" and methods[0].pricing == BY_SETTING
            and methods[0].free_over is None and methods[0].minimum_order == 0)


def load_defaults(country=None):
    """Add the default zones for a shop in ``country`` (alpha-2; default ``SHOP_COUNTRY``):
    the domestic zone (named after the country), the EU (less the shop's own country when it
    is a member) and the rest of world's own bands. Returns the list of what changed (str,
    one line each; empty when everything was there). Raises ``ValueError`` for an unknown
    country code. A handful of ORM writes (no transaction: each zone is made with its
    methods, and a run stopped half-way is finished by running it again, a zone's name
    telling it is there); the cached zone table is emptied."""
    country = str(country or settings.SHOP_COUNTRY).upper()
    home = countries.name(country)
    if not home:
        raise ValueError(f"Unknown country code {country!r} (SHOP_COUNTRY): use an ISO code such as GB.")
    done = []
    if _zone(home, [country], 10, DOMESTIC_METHODS):
        done.append(f"zone {home} ({country}): {len(DOMESTIC_METHODS)} methods")
    members = [code for code in EU if code != country]
    if _zone("European Union", members, 20, EU_METHODS):
        done.append(f"zone European Union ({len(members)} countries): {len(EU_METHODS)} methods")
    world = ShippingZone.objects.filter(rest_of_world=True).first()
    if world is None:
        world = ShippingZone(name=REST_OF_WORLD, rest_of_world=True, active=True, position=100)
        world.full_clean()
        world.save()
        _methods(world, WORLD_METHODS)
        done.append(f"zone {REST_OF_WORLD}: {len(WORLD_METHODS)} methods")
    elif _is_seeded(world):
        world.methods.all().delete()
        _methods(world, WORLD_METHODS)
        done.append(f"zone {world.name}: its own bands and {len(WORLD_METHODS)} methods")
    ShippingZone.objects.forget()
    return done
