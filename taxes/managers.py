"""``TaxRate.objects``: the rates of one destination in one read."""

from decimal import Decimal

from bson.decimal128 import Decimal128
from django.db import models

from core.mongo.collections import MongoCollectionMixin


class TaxRateManager(MongoCollectionMixin, models.Manager):
    """Reads of ``tax_rates`` for pricing."""

    def rates_for(self, country, region=""):
        """The rates that apply in ``country`` (alpha-2) and ``region`` ("" for none):
        ``({tax_class: (Decimal percent, name)}, found)`` where a region's row replaces
        the country's row of its class, and ``found`` is False when the country has no
        row at all. One read (equalities on country and region; codes are matched as
        given, upper-cased, never as patterns)."""
        country, region = str(country or "").upper(), str(region or "").upper()
        regions = ["", region] if region else [""]
        rates, found = {}, False
        documents = sorted(self.collection.find({"country": country, "region": {"$in": regions}},
                                                {"region": 1, "tax_class": 1, "percent": 1, "name": 1}),
                           key=lambda d: d.get("region") or "")  # country rows first, region rows win
        for document in documents:
            found = True
            percent = document["percent"]
            percent = percent.to_decimal() if isinstance(percent, Decimal128) else Decimal(str(percent))
            rates[document["tax_class"]] = (percent, document.get("name") or "VAT")
        return rates, found
