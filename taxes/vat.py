"""EU VAT numbers: format and check digits by country (python-stdnum's ``stdnum.eu.vat``).

No network: a number that passes its country's check is taken as the buyer's;
the shop does not query VIES (a number can be well-formed and not registered).
"""

from django.core.exceptions import ValidationError

# EU member states by ISO 3166-1 alpha-2 (Greece's VAT prefix is "EL", handled by stdnum).
EU_COUNTRIES = frozenset(
    "AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split())


def vat_prefix(country):
    """The VAT number prefix of ``country`` (alpha-2): "EL" for Greece, else the code."""
    return "EL" if country == "GR" else country


def clean_vat_number(number, country):
    """The VAT number ``number`` (str, as typed) of a buyer in ``country`` (alpha-2), compact
    with its country prefix (e.g. "DE136695976"), or "" when ``number`` is blank.

    Raises ``ValidationError`` with a message for the shopper when ``country`` is not an
    EU member state, when the number's prefix names another country, or when it fails
    its country's format and check digits.
    """
    number = (number or "").strip()
    if not number:
        return ""
    if country not in EU_COUNTRIES:
        raise ValidationError("A VAT number applies to a business in the EU; leave it blank for this country.")
    # python-stdnum takes about 60 ms to import (stdnum.util imports pydoc): imported at the
    # first number checked, not at every process's start (orders' pricing imports this module).
    from stdnum.eu import vat as eu_vat

    compact = eu_vat.compact(number)
    if not compact[:2].isalpha():
        compact = vat_prefix(country) + compact
    if compact[:2] != vat_prefix(country):
        raise ValidationError(f"This VAT number is not from the country of the address ({country}).")
    if not eu_vat.is_valid(compact):
        raise ValidationError(f"“{number}” is not a valid VAT number for {country}: check its digits.")
    return compact


def reverse_charge_applies(vat_number, country, shop_country):
    """True when a buyer with ``vat_number`` (str, "" for none) in ``country`` pays no VAT and
    accounts for it themselves (EU reverse charge): a number valid for ``country``, an EU
    member state other than ``shop_country``, the shop's own."""
    if not vat_number or country not in EU_COUNTRIES or country == shop_country:
        return False
    try:
        return bool(clean_vat_number(vat_number, country))
    except ValidationError:
        return False
