"""Seed rates for the quick start: EU VAT (standard and main reduced rate of every member
state, as of 2025), the UK's VAT, and the US with no sales tax by default (add a row per
state where the shop must collect). Staff edit them in the admin; rows already there are kept."""

from decimal import Decimal

from django.db import migrations

VAT = {  # country: (standard, reduced or None)
    "AT": ("20", "10"), "BE": ("21", "6"), "BG": ("20", "9"), "CY": ("19", "5"), "CZ": ("21", "12"),
    "DE": ("19", "7"), "DK": ("25", None), "EE": ("24", "9"), "ES": ("21", "10"), "FI": ("25.5", "14"),
    "FR": ("20", "5.5"), "GR": ("24", "13"), "HR": ("25", "13"), "HU": ("27", "5"), "IE": ("23", "13.5"),
    "IT": ("22", "10"), "LT": ("21", "9"), "LU": ("17", "8"), "LV": ("21", "12"), "MT": ("18", "7"),
    "NL": ("21", "9"), "PL": ("23", "8"), "PT": ("23", "6"), "RO": ("21", "11"), "SE": ("25", "12"),
    "SI": ("22", "9.5"), "SK": ("23", "19"), "GB": ("20", "5"),
}


def seed(apps, schema_editor):
    TaxRate = apps.get_model("taxes", "TaxRate")
    rows = [("US", "standard", "0", "Sales tax")]
    for country, (standard, reduced) in VAT.items():
        rows.append((country, "standard", standard, "VAT"))
        if reduced:
            rows.append((country, "reduced", reduced, "VAT"))
    for country, tax_class, percent, name in rows:
        if not TaxRate.objects.filter(country=country, region="", tax_class=tax_class).exists():
            TaxRate.objects.create(country=country, region="", tax_class=tax_class,
                                   percent=Decimal(percent), name=name)


class Migration(migrations.Migration):
    dependencies = [("taxes", "0001_taxship")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
