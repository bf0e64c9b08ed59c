"""The API's one JSON shape: what MongoDB returns, as JSON.

- ObjectIds are strings (``"65f0c3..."``);
- times are ISO 8601 in UTC with a ``Z`` (``"2021-03-04T05:06:07Z"``; pymongo
  returns naive datetimes that are UTC);
- money stays integer cents, in ``settings.SHOP_CURRENCY`` (a product
  document names it in its ``currency`` field);
- ``{}`` and ``[]`` stay ``{}`` and ``[]`` (FoundationDB "Hierarchical Documents" recipe's ``EMPTY_OBJECT`` and
  ``EMPTY_ARRAY``), and list order is kept.
"""

import datetime

from bson import Decimal128, ObjectId
from django.conf import settings
from django.urls import reverse


def to_json(value):
    """``value`` (a decoded BSON value: dict, list, scalar) as JSON-ready Python.

    Returns dicts, lists, strings, numbers, booleans and None. Decimal128 is a
    string (its exact digits); binary data is not part of the catalog and is
    refused with TypeError.
    """
    if isinstance(value, dict):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, ObjectId):
        return str(value)
    if isinstance(value, datetime.datetime):
        return utc_iso(value)
    if isinstance(value, Decimal128):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"{type(value).__name__} has no JSON form in the catalog API.")


def utc_iso(moment):
    """``moment`` as ISO 8601 UTC: ``2021-03-04T05:06:07Z`` (microseconds when not 0).

    A naive datetime is taken as UTC (pymongo's default).
    """
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC).replace(tzinfo=None)
    return moment.isoformat() + "Z"


def product_card(product):
    """A product of a listing (a ``Product`` read with the card fields) as JSON:
    ``{_id, sku, title, type, artist, issue_date, pricing, variants, currency, url}`` (``variants``:
    ``[{sku, options, pricing}]``, empty for a product selling its own SKU)."""
    details = product.details or {}
    issue_date = details.get("issue_date")
    pricing = product.pricing
    return {
        "_id": str(product.pk),
        "sku": product.sku,
        "title": product.title,
        "type": product.type,
        "artist": details.get("artist"),
        "issue_date": utc_iso(issue_date) if issue_date else None,
        "pricing": {"list": pricing.list, "retail": pricing.retail, "savings": pricing.savings,
                    "pct_savings": pricing.pct_savings},
        "variants": [{"sku": v.sku, "options": dict(v.options or {}),
                      "pricing": {"list": v.pricing.list, "retail": v.pricing.retail,
                                  "savings": v.pricing.savings, "pct_savings": v.pricing.pct_savings}}
                     for v in product.variants or ()],
        "currency": settings.SHOP_CURRENCY,
        "url": reverse("api-v1:product", args=[product.sku]),
    }

