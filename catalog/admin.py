"""The catalog in the Django admin: the category tree and the products.

Categories: the changelist shows the whole tree, indented in tree order,
with the number of products listed in each category; it costs the same
few round trips whatever the size of the tree (``CategoryChangeList``:
``Category.objects.tree()`` is one read, ``Product.objects.count_by_category()``
one aggregation; search and pagination run over that list). Every add,
rename, slug change, move and delete goes through ``Category.objects``
(seed 000), so the ancestors of every category stay right; what the manager
refuses (a cycle, a taken slug, a delete of a category that is not empty)
is a form error or an admin message, and changes nothing.

Products: search by title, SKU or artist, filters by type and category (the
category and its descendants, as on the storefront), sorting, pagination;
the form (``ProductAdminForm``) shows prices in dollars and stores cents.

Only staff reach the admin; staff without the change permission can look
but not change; every change is in Django's LogEntry history.
"""

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from .admin_forms import (
    DETAILS_FORMS,
    CategoryAdminForm,
    ProductAdminForm,
    details_field_names,
)
from .managers import CatalogError, CategoryNotEmpty, as_object_id
from .models import Category, Product
from .templatetags.shop import money


class CategoryChangeList(ChangeList):
    """The category changelist: the whole tree from one read, product counts from one aggregation.

    Search (``?q=``, case-insensitive, in names and slugs) and pagination run
    over the tree in memory, so the page costs a constant number of round
    trips, whatever the number of categories. The rows keep tree order.
    """

    def get_results(self, request):
        nodes = Category.objects.tree()
        product_counts = Product.objects.count_by_category()
        full_count = len(nodes)
        if self.query:
            term = self.query.casefold()
            nodes = [c for c in nodes if term in c.name.casefold() or term in c.slug.casefold()]
        paginator = self.model_admin.get_paginator(request, nodes, self.list_per_page)
        result_count = paginator.count
        can_show_all = result_count <= self.list_max_show_all
        multi_page = result_count > self.list_per_page
        if (self.show_all and can_show_all) or not multi_page:
            result_list = nodes
        else:
            result_list = paginator.get_page(self.page_num).object_list
        for category in result_list:
            category.product_count = product_counts.get(category.pk, 0)
        self.result_count = result_count
        self.show_full_result_count = True
        self.full_result_count = full_count
        self.show_admin_actions = bool(full_count)
        self.result_list = result_list
        self.can_show_all = can_show_all
        self.multi_page = multi_page
        self.paginator = paginator


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    """The category tree, edited through ``Category.objects`` (seed 000's ancestor operations)."""

    form = CategoryAdminForm
    list_display = ["tree_name", "slug", "product_count"]
    list_display_links = ["tree_name"]
    search_fields = ["name", "slug"]
    search_help_text = "Search category names and slugs."
    sortable_by = ()  # Always tree order.
    list_per_page = 100
    fields = ["name", "slug", "parent"]

    def get_changelist(self, request, **kwargs):
        return CategoryChangeList

    def get_search_results(self, request, queryset, search_term):
        # CategoryChangeList searches the tree it read; no query here.
        return queryset, False

    def get_actions(self, request):
        # Deleting several categories at once would bypass the manager's checks.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_list_display(self, request):
        if request.GET.get("q"):
            return [*self.list_display, "path"]  # Matches out of their tree: show where they are.
        return self.list_display

    @admin.display(description="Category")
    def tree_name(self, category):
        return format_html(
            '<span class="tree-depth-{}" style="padding-left: {}em">{}</span>',
            category.depth, category.depth * 1.5, category.name,
        )

    @admin.display(description="Products")
    def product_count(self, category):
        number = getattr(category, "product_count", 0)  # Set by CategoryChangeList.
        url = reverse("admin:catalog_product_changelist")
        return format_html('<a href="{}?category={}">{}</a>', url, category.pk, number)

    @admin.display(description="Path")
    def path(self, category):
        return category.path

    # -- saving through the manager ----------------------------------------

    def save_model(self, request, obj, form, change):
        """Add, rename (name or slug) and move through ``Category.objects``.

        ``form`` has already asked the manager whether a move is allowed; a
        refusal the manager still raises here (another change in between)
        is turned into a message by ``changeform_view``.
        """
        data = form.cleaned_data
        if not change:
            created = Category.objects.create_category(
                data["name"], parent=data.get("parent"), slug=data.get("slug") or None
            )
            obj.pk, obj.slug, obj.parent_id, obj.ancestors = (
                created.pk, created.slug, created.parent_id, created.ancestors,
            )
            obj._state.adding = False
            return
        stored = Category.objects.get(pk=obj.pk)
        if "name" in form.changed_data or "slug" in form.changed_data:
            Category.objects.rename(stored, data["name"], slug=data.get("slug") or None)
        if "parent" in form.changed_data:
            Category.objects.move(stored, data.get("parent"))
        obj.ancestors = stored.ancestors

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """The add/change view; a save the manager refuses becomes an error message, not a 500."""
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except (CatalogError, Category.DoesNotExist) as error:
            self.message_user(request, f"Nothing was saved: {error}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_deleted_objects(self, objs, request):
        """What a delete would remove: the category alone, or the manager's reason for refusing."""
        protected = []
        for category in objs:
            try:
                Category.objects.check_deletable(category)
            except CategoryNotEmpty as error:
                protected.append(str(error))
        return [str(c) for c in objs], {Category._meta.verbose_name_plural: len(objs)}, set(), protected

    def delete_model(self, request, obj):
        Category.objects.delete_category(obj)


class CategoryFilter(admin.SimpleListFilter):
    """Products listed in a category or any of its descendants (as the category page lists them).

    The sidebar offers the top two levels of the tree; any category can be
    chosen through ``?category=<id>`` (the category changelist links there).
    """

    title = "category"
    parameter_name = "category"

    def lookups(self, request, model_admin):
        choices = [(str(c.pk), "— " * c.depth + c.name) for c in Category.objects.tree(max_depth=1)]
        value = self.value()
        if value and value not in {key for key, _ in choices}:
            category = self._category()
            if category is not None:
                choices.append((value, category.path))
        return choices

    def _category(self):
        category_id = as_object_id(self.value())
        if category_id is None:
            return None
        return Category.objects.filter(pk=category_id).first()

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        category = self._category()
        if category is None:
            return queryset.none()
        ids = [category.pk, *(c.pk for c in Category.objects.descendants(category))]
        return queryset.filter(categories__overlap=ids)


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    """Products: search, filters, sorting, pagination; the form shows dollars and stores cents."""

    form = ProductAdminForm
    list_display = ["sku", "title", "type", "artist", "retail_price"]
    list_display_links = ["sku", "title"]
    list_filter = ["type", CategoryFilter]
    search_fields = ["title", "sku", "details__artist"]
    search_help_text = "Search titles, SKUs and artists."
    list_per_page = 50
    ordering = ["title"]

    @property
    def fieldsets(self):
        sets = [
            (None, {"fields": ["sku", "type", "title", "description", "categories"]}),
            ("Pricing", {"fields": ["list_price", "retail_price"]}),
            ("Cover", {"fields": ["image"]}),
            ("Shipping", {"fields": ["weight", ("width", "height", "depth")]}),
        ]
        for product_type, (_form, prefix) in DETAILS_FORMS.items():
            sets.append((
                f"{product_type} details",
                {"fields": details_field_names(product_type),
                 "classes": ["product-details", f"details-{prefix}"],
                 "description": f"Used when the type is {product_type}."},
            ))
        return sets

    def get_fieldsets(self, request, obj=None):
        if obj is not None and not self.has_change_permission(request, obj):
            # Staff who may only look: the stored values, read-only (no form fields to fill).
            return [
                (None, {"fields": ["sku", "type", "title", "description", "category_paths"]}),
                ("Pricing", {"fields": ["list_price", "retail_price"]}),
                ("Shipping and details", {"fields": ["shipping_summary", "details_summary"]}),
            ]
        return super().get_fieldsets(request, obj)

    def save_model(self, request, obj, form, change):
        """Save the product; a new one also gets its stock record, with 0 units.

        The stock admin then lists the SKU, so staff can set its stock there
        (it adds no stock records itself).
        """
        super().save_model(request, obj, form, change)
        if not change:
            from inventory.models import Inventory

            Inventory.objects.ensure_stock([obj.sku], 0)

    @admin.display(description="Categories")
    def category_paths(self, product):
        categories = Category.objects.filter(pk__in=product.categories)
        return ", ".join(sorted(c.path for c in categories)) or "-"

    @admin.display(description="List price")
    def list_price(self, product):
        return money(product.pricing.list) if product.pricing else ""

    @admin.display(description="Shipping")
    def shipping_summary(self, product):
        shipping = product.shipping
        if shipping is None:
            return "-"
        size = shipping.dimensions
        size = f", {size.width} x {size.height} x {size.depth} mm" if size else ""
        return f"{shipping.weight} g{size}"

    @admin.display(description="Details")
    def details_summary(self, product):
        details = product.details
        if details is None:
            return "-"
        parts = []
        for field in details._meta.concrete_fields:
            value = getattr(details, field.attname, None)
            if field.name in ("id", "tracks") or value in (None, "", []):
                continue
            value = ", ".join(map(str, value)) if isinstance(value, list) else value
            parts.append(f"{field.verbose_name}: {value}")
        tracks = getattr(details, "tracks", None)
        if tracks:
            parts.append(f"{len(tracks)} tracks")
        return "; ".join(parts)

    @admin.display(description="Artist")
    def artist(self, product):
        return getattr(product.details, "artist", "") or ""

    @admin.display(description="Retail price", ordering="pricing__retail")
    def retail_price(self, product):
        return money(product.pricing.retail) if product.pricing else ""

    class Media:
        js = ["shop/admin/product_form.js"]

