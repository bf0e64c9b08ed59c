"""Tax rates by destination: one ``TaxRate`` per (country, region, tax class).

A country's rates are its rows with ``region`` "" (the whole country); a
region row (a US state, a Canadian province: the ISO 3166-2 code's part
after the dash, e.g. "NY", "QC") replaces the country's rate of its class
there. Which rate a line gets: ``taxes.rates`` (see docs/taxes-and-shipping.md).
"""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from .managers import TaxRateManager

STANDARD, REDUCED, ZERO = "standard", "reduced", "zero"
TAX_CLASSES = [(STANDARD, "Standard"), (REDUCED, "Reduced"), (ZERO, "Zero")]


class TaxRate(models.Model):
    """The ``percent`` (e.g. 20, 8.875) charged on goods of ``tax_class`` sent to ``country``
    (ISO 3166-1 alpha-2), in ``region`` ("" for the whole country), named ``name`` on the
    order ("VAT", "Sales tax")."""

    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2, e.g. DE")
    region = models.CharField(max_length=3, blank=True, default="",
                              help_text="blank for the whole country; a state or province code, e.g. NY")
    tax_class = models.CharField(max_length=10, choices=TAX_CLASSES, default=STANDARD)
    percent = models.DecimalField(max_digits=6, decimal_places=3,
                                  validators=[MinValueValidator(0), MaxValueValidator(100)])
    name = models.CharField(max_length=40, default="VAT")

    objects = TaxRateManager()

    class Meta:
        db_table = "tax_rates"
        ordering = ["country", "region", "tax_class"]
        constraints = [models.UniqueConstraint(fields=["country", "region", "tax_class"],
                                               name="tax_rate_country_region_class")]

    def __str__(self):
        where = f"{self.country}-{self.region}" if self.region else self.country
        return f"{where} {self.tax_class}: {self.percent} %"

    def save(self, *args, **kwargs):
        """Codes upper-cased before the write."""
        self.country, self.region = self.country.upper(), self.region.upper()
        super().save(*args, **kwargs)
