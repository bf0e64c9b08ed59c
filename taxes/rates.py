"""The tax of an order by its destination: the body of ``orders.pricing._tax``.

Each line's rate comes from its tax class (the product's ``tax_class``, else its
type's, else "standard") and the destination (``TaxRate.objects.rates_for``:
the region's row, else the country's; a class the country has no row for is
taxed at its standard rate, "zero" at 0; a country with no row at all, or no
address yet, at ``settings.SHOP_TAX_PERCENT``).

The rounding rule (docs/taxes-and-shipping.md):

* each line's tax is rounded half up to the cent on its own amount after
  discounts: ``net x rate / 100`` when prices exclude tax
  (``SHOP_PRICES_INCLUDE_TAX`` False, US style: added on top), or
  ``gross x rate / (100 + rate)`` when they include it (EU/UK style: the part
  inside the price shown);
* shipping is taxed at the weighted rate of the goods it carries (the lines'
  rates weighted by their amounts after discounts; the standard rate when those
  are all 0), rounded half up the same way;
* the order's tax is the sum of the lines' tax plus the shipping's, exactly.
"""

from fractions import Fraction

from django.conf import settings

from catalog.models import ProductType

from .models import REDUCED, STANDARD, ZERO, TaxRate
from .vat import reverse_charge_applies, vat_prefix


def round_half_up(value):
    """``value`` (a ``Fraction`` of cents >= 0) rounded half up to whole cents (int)."""
    return int((value + Fraction(1, 2)) // 1)


def tax_part(amount, percent, included):
    """The tax in ``amount`` cents at ``percent`` (Decimal or Fraction): on top of it when
    ``included`` is False, the part inside it when True; rounded half up (int cents)."""
    percent = Fraction(percent)
    if not percent or amount <= 0:
        return 0
    return round_half_up(amount * percent / (100 + percent if included else 100))


def percent_text(percent):
    """A percent as stored on an order line: "20", "8.875", "7.5" (at most 3 decimals)."""
    text = f"{float(Fraction(percent)):.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _type_classes(names):
    """``{product type name: tax class}`` of ``names`` from the cached types (no read in a
    request that has read them)."""
    documents = ProductType.objects._documents()
    return {name: (documents.get(name) or {}).get("tax_class") or "" for name in names}


def destination_rates(address):
    """``(rates, name)`` for ``address`` (dict with ``country`` and optional ``region``, or
    None): ``rates`` a function ``tax class -> Decimal percent`` and ``name`` the tax's name
    ("VAT", "Sales tax"). One read when there is a country; none otherwise."""
    default = settings.SHOP_TAX_PERCENT
    country = (address or {}).get("country") or ""
    if not country:
        return (lambda tax_class: 0 if tax_class == ZERO else default), "Tax"
    rows, found = TaxRate.objects.rates_for(country, (address or {}).get("region") or "")
    name = next((row[1] for row in rows.values()), "Tax")
    if not found:
        return (lambda tax_class: 0 if tax_class == ZERO else default), "Tax"

    def rate(tax_class):
        if tax_class in rows:
            return rows[tax_class][0]
        if tax_class == ZERO:
            return 0
        return rows[STANDARD][0] if STANDARD in rows else default
    return rate, name


def apply_tax(priced, context):
    """Put the tax on ``priced`` (``orders.pricing.Priced``) for ``context``
    (``PricingContext``: its ``address`` and ``vat_number``): each line's ``tax``,
    ``tax_rate``, ``tax_class``, ``tax_included``; ``priced.shipping_tax``,
    ``shipping_tax_rate``, ``tax_included``, ``tax_name``, ``tax_percent`` (the one rate
    when all lines share it, else ""), ``reverse_charge`` and ``vat_number``.
    At most one read (the destination's rates); the product types come from the cache."""
    included = bool(settings.SHOP_PRICES_INCLUDE_TAX)
    address = context.address or {}
    priced.tax_included = included
    if reverse_charge_applies(context.vat_number, address.get("country", ""), settings.SHOP_COUNTRY):
        # EU reverse charge: the buyer accounts for the VAT; nothing charged, stated on the order.
        # With prices entered including VAT, the price shown is what is paid (no VAT is taken out).
        from stdnum.eu import vat as eu_vat
        compact = eu_vat.compact(context.vat_number)
        priced.vat_number = compact if compact[:2].isalpha() else vat_prefix(address["country"]) + compact
        priced.reverse_charge, priced.tax_included, priced.tax_name = True, False, "VAT"
        for line in priced.lines:
            line.tax, line.tax_rate, line.tax_included = 0, "0", False
            line.tax_class = line.tax_class or STANDARD
        priced.shipping_tax, priced.shipping_tax_rate, priced.tax_percent = 0, "0", "0"
        return
    rate, priced.tax_name = destination_rates(address)
    missing = {line.product_type for line in priced.lines if not line.tax_class and line.product_type}
    type_classes = _type_classes(missing) if missing else {}
    weighted, base = Fraction(0), 0
    for line in priced.lines:
        line.tax_class = line.tax_class or type_classes.get(line.product_type) or STANDARD
        percent = Fraction(rate(line.tax_class if line.tax_class in (STANDARD, REDUCED, ZERO) else STANDARD))
        amount = line.subtotal - line.discount
        line.tax, line.tax_rate, line.tax_included = tax_part(amount, percent, included), percent_text(percent), included
        weighted += amount * percent
        base += amount
    shipping_percent = weighted / base if base > 0 else Fraction(rate(STANDARD))
    priced.shipping_tax = tax_part(priced.shipping, shipping_percent, included)
    priced.shipping_tax_rate = percent_text(shipping_percent)
    distinct = {line.tax_rate for line in priced.lines}
    priced.tax_percent = distinct.pop() if len(distinct) == 1 else ("" if distinct else percent_text(rate(STANDARD)))
