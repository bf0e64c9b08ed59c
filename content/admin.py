"""The staff's admin of the home page's blocks, the content pages and the footer menu
(docs/staff.md "The home page", "Content pages and the footer")."""

from django.contrib import admin, messages
from django.utils.html import format_html

from core import clock

from .models import ContentPage, FooterLink, HomeBlock


@admin.register(HomeBlock)
class HomeBlockAdmin(admin.ModelAdmin):
    """The home page's blocks: ordered by ``position`` (editable in the list), scheduled by
    ``starts_at``/``ends_at`` (UTC), previewed before they are live ("Preview" opens the home
    page with the block, drafts and scheduled ones included, for staff only)."""

    list_display = ("__str__", "kind", "position", "published", "starts_at", "ends_at", "state", "preview")
    list_editable = ("position", "published")
    list_filter = ("kind", "published")
    actions = ("publish", "unpublish")
    fieldsets = (
        (None, {"fields": ("kind", "position", "published", "starts_at", "ends_at")}),
        ("Heading, text and link", {"fields": ("heading", "text", "link_url", "link_label", "image")}),
        ("A collection's products", {"fields": ("source", "category_slug", "search_query", "skus", "limit")}),
    )

    @admin.display(description="now")
    def state(self, block):
        """Whether the block shows now: "live", "scheduled", "ended" or "draft"."""
        if not block.published:
            return "draft"
        now = clock.now()
        if block.live_at(now):
            return "live"
        return "scheduled" if block.starts_at and block.starts_at > now else "ended"

    @admin.display(description="preview")
    def preview(self, block):
        """A link to the home page with this block shown (staff only)."""
        return format_html('<a href="{}">Preview</a>', block.get_absolute_url())

    @admin.action(description="Publish the selected blocks")
    def publish(self, request, queryset):
        self._set_published(request, queryset, True)

    @admin.action(description="Unpublish the selected blocks (drafts)")
    def unpublish(self, request, queryset):
        self._set_published(request, queryset, False)

    def _set_published(self, request, queryset, value):
        blocks = list(queryset)
        for block in blocks:  # each save bumps the home page's version (content/receivers.py)
            block.published = value
            block.save(update_fields=["published", "updated_at"])
        messages.success(request, f"{len(blocks)} block(s) {'published' if value else 'unpublished'}.")


@admin.register(ContentPage)
class ContentPageAdmin(admin.ModelAdmin):
    """Content pages in Markdown, sanitised at save; "View on site" opens ``/pages/<slug>/``."""

    list_display = ("title", "slug", "published", "updated_at")
    list_editable = ("published",)
    prepopulated_fields = {"slug": ("title",)}
    search_fields = ("title",)
    fields = ("title", "slug", "published", "body")


@admin.register(FooterLink)
class FooterLinkAdmin(admin.ModelAdmin):
    """The footer menu, in ``position`` order (editable in the list)."""

    list_display = ("label", "page", "url", "position")
    list_editable = ("position",)
