"""Staff pages for tax rates: list by country, filter by class, search by country code."""

from django.contrib import admin

from .models import TaxRate


@admin.register(TaxRate)
class TaxRateAdmin(admin.ModelAdmin):
    """Rates per country, region and tax class. An edit applies to orders placed after it;
    placed orders keep the rates they were charged (``OrderLine.tax_rate``)."""

    list_display = ("country", "region", "tax_class", "percent", "name")
    list_filter = ("tax_class",)
    search_fields = ("country", "region")
    ordering = ("country", "region", "tax_class")
