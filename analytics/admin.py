"""Admin pages of analytics: the raw events and the rollup progress, read only.

The dashboard itself is ``/admin/analytics/`` (``analytics.urls``), which
is also where the admin index's "Analytics" heading leads.
"""

from django.contrib import admin

from .models import Event, RollupProgress


class ReadOnlyAdmin(admin.ModelAdmin):
    """Written by the shop and rollup_stats only: staff look, never edit."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["ts", "type", "sku", "qty", "amount", "userid"]
    list_filter = ["type"]
    search_fields = ["sku"]
    show_full_result_count = False


@admin.register(RollupProgress)
class RollupProgressAdmin(ReadOnlyAdmin):
    list_display = ["id", "done_until", "updated"]
