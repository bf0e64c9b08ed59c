"""Shipping zones and their methods (collections ``shipping_zones``, ``shipping_methods``).

A zone is a set of countries (ISO 3166-1 alpha-2), optionally narrowed to postcode
prefixes, or the "rest of world" (every destination no other zone covers). Each zone
has methods (standard, express, collection), each priced by bands of the order's
weight (grams) or of its value (cents), or by the ``SHIPPING_BANDS`` setting, with a
free-shipping threshold, a minimum order value and a delivery estimate in days.
Which zone and method an order gets: ``shipping.rates`` (docs/taxes-and-shipping.md).

Documents::

    shipping_zones   {_id, name, countries: [str], postcode_prefixes: [str],
                      rest_of_world: bool, active: bool, position: int}
    shipping_methods {_id, zone_id, name, kind, pricing, bands: ["250:399", "*:1999"],
                      free_over: cents|null, minimum_order: cents, days_min, days_max,
                      active: bool, position: int}
"""

import re

from django.core.exceptions import ValidationError
from django.db import models
from django_countries import countries as all_countries
from django_mongodb_backend.fields import ArrayField

from .managers import ShippingZoneManager

STANDARD, EXPRESS, COLLECTION = "standard", "express", "collection"
KINDS = [(STANDARD, "Standard"), (EXPRESS, "Express"), (COLLECTION, "Collection")]
BY_WEIGHT, BY_VALUE, BY_SETTING = "weight", "value", "setting"
PRICINGS = [(BY_WEIGHT, "By weight bands (grams)"), (BY_VALUE, "By order value bands (cents)"),
            (BY_SETTING, "By the SHIPPING_BANDS setting (weight)")]

_BAND = re.compile(r"^\s*(\*|\d{1,9})\s*[:=]\s*(\d{1,9})\s*$")
_PREFIX = re.compile(r"^[A-Z0-9]{1,10}$")


def parse_bands(entries):
    """``["250:399", "1000:699", "*:1999"]`` (up to grams or cents of order value ``:``
    price in cents; ``*`` any amount) as ``[(250, 399), (1000, 699), (None, 1999)]``.

    Raises ``ValidationError`` (a message per fault) when an entry is malformed, the
    limits do not ascend, or the last band is not ``*``."""
    bands, errors = [], []
    for entry in entries or []:
        match = _BAND.match(str(entry))
        if not match:
            errors.append(f"“{entry}” is not a band: write up-to:cents, e.g. 250:399, and *:cents last.")
            continue
        limit = None if match.group(1) == "*" else int(match.group(1))
        bands.append((limit, int(match.group(2))))
    if errors:
        raise ValidationError(errors)
    if not bands:
        raise ValidationError("Enter at least one band, e.g. *:499.")
    if bands[-1][0] is not None:
        raise ValidationError("End the bands with *:cents (any amount above the last limit).")
    limits = [limit for limit, _ in bands[:-1]]
    if None in limits:
        raise ValidationError("Only the last band may be *.")
    if limits != sorted(set(limits)):
        raise ValidationError("Band limits must go up, each once.")
    return bands


class ShippingZone(models.Model):
    """Where methods apply: ``countries`` (alpha-2 codes) and, when given, only postcodes
    starting with one of ``postcode_prefixes`` (spaces ignored, upper case); or
    ``rest_of_world`` (every destination no other active zone covers; at most one).
    A more specific zone wins: postcode prefixes, then countries, then rest of world;
    among equals the lower ``position``."""

    name = models.CharField(max_length=100, help_text="shown on the order, e.g. “EU” or “London”")
    countries = ArrayField(models.CharField(max_length=2), default=list, blank=True,
                           help_text="ISO country codes, comma-separated, e.g. DE,FR,AT")
    postcode_prefixes = ArrayField(models.CharField(max_length=10), default=list, blank=True,
                                   help_text="optional: only postcodes starting with one of these, e.g. EC,WC,N1")
    rest_of_world = models.BooleanField(default=False, help_text="covers every destination no other zone covers")
    active = models.BooleanField(default=True)
    position = models.PositiveIntegerField(default=0, help_text="lower first among equally specific zones")

    objects = ShippingZoneManager()

    class Meta:
        db_table = "shipping_zones"
        ordering = ["position", "name"]

    def __str__(self):
        return self.name

    def clean(self):
        """Country codes known and upper-cased, prefixes normalized; a zone covers some
        country unless it is the rest of world; one active rest-of-world zone at most.
        Errors as form errors (``ValidationError`` by field)."""
        errors = {}
        codes = [str(code).strip().upper() for code in self.countries or [] if str(code).strip()]
        unknown = [code for code in codes if code not in dict(all_countries)]
        if unknown:
            errors["countries"] = f"Unknown country codes: {', '.join(unknown)} (use ISO codes such as DE, FR)."
        self.countries = list(dict.fromkeys(codes))
        prefixes = [str(p).replace(" ", "").upper() for p in self.postcode_prefixes or [] if str(p).strip()]
        bad = [prefix for prefix in prefixes if not _PREFIX.match(prefix)]
        if bad:
            errors["postcode_prefixes"] = f"Postcode prefixes are letters and digits: {', '.join(bad)}."
        self.postcode_prefixes = list(dict.fromkeys(prefixes))
        if self.rest_of_world and (self.countries or self.postcode_prefixes):
            errors["rest_of_world"] = "The rest of world zone lists no countries or postcodes."
        elif not self.rest_of_world and not self.countries and "countries" not in errors:
            errors["countries"] = "Enter the zone's countries (or make it the rest of world)."
        if self.rest_of_world and self.active and ShippingZone.objects.filter(
                rest_of_world=True, active=True).exclude(pk=self.pk).exists():
            errors["rest_of_world"] = "Another active zone is already the rest of world."
        if errors:
            raise ValidationError(errors)


class ShippingMethod(models.Model):
    """One way to ship to ``zone``: ``name`` and ``kind`` (standard, express, collection),
    priced by ``pricing``: weight bands (grams), value bands (the goods' value after
    discounts, cents) or the ``SHIPPING_BANDS`` setting; ``bands`` ``["up-to:cents", ...,
    "*:cents"]``. Free when the goods' value is at least ``free_over`` cents (None: never);
    offered only when the goods' value is at least ``minimum_order`` cents; delivered in
    ``days_min``-``days_max`` days."""

    zone = models.ForeignKey(ShippingZone, on_delete=models.CASCADE, related_name="methods")
    name = models.CharField(max_length=100, help_text="what the shopper picks, e.g. “Express (tracked)”")
    kind = models.CharField(max_length=12, choices=KINDS, default=STANDARD)
    pricing = models.CharField(max_length=10, choices=PRICINGS, default=BY_WEIGHT)
    bands = ArrayField(models.CharField(max_length=24), default=list, blank=True,
                       help_text="up-to:cents, comma-separated, ascending, *:cents last; e.g. 250:399,1000:699,*:1999 "
                                 "(grams by weight, cents of order value by value; unused by the setting)")
    free_over = models.PositiveIntegerField(null=True, blank=True,
                                            help_text="cents: free when the goods come to at least this; blank: never")
    minimum_order = models.PositiveIntegerField(default=0, help_text="cents: offered only from this order value")
    days_min = models.PositiveIntegerField(default=2, help_text="estimated delivery, working days (from)")
    days_max = models.PositiveIntegerField(default=5, help_text="estimated delivery, working days (to)")
    active = models.BooleanField(default=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "shipping_methods"
        ordering = ["zone", "position", "name"]

    def __str__(self):
        return f"{self.name} ({self.zone.name})" if self.zone_id else self.name

    def clean(self):
        """Bands parsed (``parse_bands``) and stored normalized, required unless priced by the
        setting; ``days_min`` <= ``days_max``. Errors as form errors by field."""
        errors = {}
        if self.pricing == BY_SETTING:
            self.bands = []
        else:
            try:
                self.bands = [f"{'*' if limit is None else limit}:{cents}" for limit, cents in parse_bands(self.bands)]
            except ValidationError as error:
                errors["bands"] = error.messages
        if self.days_min > self.days_max:
            errors["days_max"] = "The delivery estimate ends before it starts."
        if errors:
            raise ValidationError(errors)
