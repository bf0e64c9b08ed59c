"""Staff pages for shipping: zones, each with its methods inline.

Validation is the models' ``clean`` (known country codes, postcode prefixes, one rest of
world, bands that ascend and end with ``*``, a delivery estimate that ends after it
starts), shown as form errors. An edit applies to orders priced after it (the cached
zones are emptied on save); placed orders keep the method as applied (``Order.shipping_method``).
"""

from django.contrib import admin

from core.money import display

from .models import ShippingMethod, ShippingZone


class ShippingMethodInline(admin.StackedInline):
    """A zone's methods: name, kind, pricing and bands, free-shipping threshold, minimum
    order (cents) and the delivery estimate (working days)."""

    model = ShippingMethod
    extra = 0
    fields = (("name", "kind", "active", "position"), ("pricing", "bands"), ("free_over", "minimum_order"),
              ("days_min", "days_max"))


@admin.register(ShippingZone)
class ShippingZoneAdmin(admin.ModelAdmin):
    """Zones by position: countries, postcode prefixes, rest of world, and their methods."""

    list_display = ("name", "country_list", "prefix_list", "rest_of_world", "active", "position", "method_list")
    list_filter = ("active", "rest_of_world")
    search_fields = ("name",)
    inlines = [ShippingMethodInline]

    def get_queryset(self, request):
        """The zones with their methods prefetched (one more read for the whole list)."""
        return super().get_queryset(request).prefetch_related("methods")  # one read for the list's methods

    @admin.display(description="countries")
    def country_list(self, zone):
        """The zone's country codes, or "every other" for the rest of world."""
        return ", ".join(zone.countries or []) or ("every other" if zone.rest_of_world else "")

    @admin.display(description="postcodes")
    def prefix_list(self, zone):
        """The zone's postcode prefixes ("" for the whole countries)."""
        return ", ".join(zone.postcode_prefixes or [])

    @admin.display(description="methods")
    def method_list(self, zone):
        """Each method's name, pricing and free-shipping threshold (dollars)."""
        return "; ".join(f"{method.name} ({method.get_pricing_display().split(' (')[0].lower()}"
                         f"{', free from ' + display(method.free_over) if method.free_over is not None else ''})"
                         for method in zone.methods.all())
