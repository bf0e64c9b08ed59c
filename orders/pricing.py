"""What an order costs: the lines, shipping by weight band, and tax; all in integer cents.

Computed on the server from the cart's lines at the catalog's prices of now
(re-read at checkout: ``orders.repricing``) and the products' shipping
weights, never taken from a form.

* Shipping: the order's weight (sum of ``qty`` x the product's
  ``shipping.weight``, grams) falls in the first band of
  ``settings.SHIPPING_BANDS`` (``[(up to grams or None, cents), ...]``,
  ascending) that holds it.
* Tax: ``settings.SHOP_TAX_PERCENT`` percent of lines plus shipping, rounded
  half up to the cent, added on top (prices are shown before tax).
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class Totals:
    """An order's figures in cents (``weight`` in grams)."""

    subtotal: int
    shipping: int
    tax: int
    total: int
    weight: int
    tax_percent: int


def shipping_cost(weight):
    """The shipping cost in cents of a parcel of ``weight`` grams (int >= 0), by ``SHIPPING_BANDS``.

    Raises ``ImproperlyConfigured`` when no band holds the weight (the last
    band should be ``(None, cents)``).
    """
    for limit, cents in settings.SHIPPING_BANDS:
        if limit is None or weight <= limit:
            return int(cents)
    raise ImproperlyConfigured(f"No shipping band for {weight} g: end SHIPPING_BANDS with (None, cents).")


def tax_on(amount, percent=None):
    """``percent`` (default ``SHOP_TAX_PERCENT``) of ``amount`` cents, rounded half up (int cents)."""
    percent = settings.SHOP_TAX_PERCENT if percent is None else percent
    return (amount * percent + 50) // 100


def totals(lines, weights):
    """The ``Totals`` of ``lines`` (``[{sku, qty, price}]``, price in cents per unit).

    ``weights`` is ``{sku: grams per unit}``; a SKU missing from it weighs 0.
    """
    subtotal = sum(line["qty"] * line["price"] for line in lines)
    weight = sum(line["qty"] * weights.get(line["sku"], 0) for line in lines)
    shipping = shipping_cost(weight) if lines else 0
    percent = settings.SHOP_TAX_PERCENT
    tax = tax_on(subtotal + shipping, percent)
    return Totals(subtotal=subtotal, shipping=shipping, tax=tax, total=subtotal + shipping + tax,
                  weight=weight, tax_percent=percent)
