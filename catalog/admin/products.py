"""The catalog in the Django admin: the category tree and the products.

Categories: the changelist is the whole tree, indented, collapsible, with
the products of each category and of its subtree, reordered and moved by
drag and drop (``catalog/admin/tree.py``); it costs the same few round
trips whatever the size of the tree. Every add,
rename, slug change, move and delete goes through ``Category.writes``
("Category Hierarchy" use case), so the ancestors of every category stay right; what the manager
refuses (a cycle, a taken slug, a delete of a category that is not empty)
is a form error or an admin message, and changes nothing.

Products: search by title, SKU or artist, filters by type and category (the
category and its descendants, as on the storefront), sorting, pagination;
adding one starts by choosing its type; the form (``ProductAdminForm``, with
one field per attribute of the type: ``product_form_for``) shows prices in
dollars and stores cents; its images are rows below it
(``catalog/admin/gallery.py``). Product types: ``catalog/admin/types.py``.

Only staff reach the admin; staff without the change permission can look
but not change; every change is in Django's LogEntry history.
"""

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.http import HttpResponseRedirect
from django.urls import path, reverse

from catalog.admin.forms import CategoryAdminForm, ProductAdminForm, product_form_for
from catalog.admin.attribute_fields import field_name
from catalog.admin.gallery import ProductImageInline
from catalog.admin.variants import VariantsAdminMixin
from catalog.admin.tree import TREE_PAGE_SIZE, CategoryChangeList, move_view
from catalog.exceptions import CatalogError, CategoryNotEmpty
from catalog.store.ids import as_object_id
from catalog.models import Category, Product, ProductImage, ProductType
from catalog.admin.types import ProductTypeAdmin  # noqa: F401  (registers the product types' admin)
from catalog.admin.imports import ProductImportExportMixin
from core.templatetags.money import money
from inventory.models import Inventory


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    """The category tree, edited through ``Category.writes`` ("Category Hierarchy" use case's ancestor operations)."""

    form = CategoryAdminForm
    # The template draws the tree's rows itself (admin_tree.tree_rows, 20 times faster than
    # the admin's cell-by-cell rendering on 5,000 rows); these name its columns for Django.
    list_display = ["name", "slug"]
    list_display_links = None
    search_fields = ["name", "slug"]
    search_help_text = "Search category names and slugs; the tree opens the path to each match."
    sortable_by = ()  # Always tree order.
    list_per_page = list_max_show_all = TREE_PAGE_SIZE  # The whole tree on one page.
    fields = ["name", "slug", "parent", "place_before"]
    change_list_template = "admin/catalog/category/change_list.html"

    class Media:
        css = {"all": ["shop/admin/category_tree.css"]}
        js = ["shop/admin/category_tree.js"]

    def get_changelist(self, request, **kwargs):
        return CategoryChangeList

    def get_urls(self):
        move = self.admin_site.admin_view(lambda request: move_view(self, request))
        return [path("move/", move, name="catalog_category_move"), *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        """The tree; the template gets the move endpoint when staff may change categories."""
        extra_context = dict(extra_context or {})
        if self.has_change_permission(request):
            extra_context["tree_move_url"] = reverse("admin:catalog_category_move")
        return super().changelist_view(request, extra_context)

    def get_search_results(self, request, queryset, search_term):
        # CategoryChangeList searches the tree it read; no query here.
        return queryset, False

    def get_actions(self, request):
        # Deleting several categories at once would bypass the manager's checks.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    # -- saving through the manager ----------------------------------------

    def save_model(self, request, obj, form, change):
        """Add, rename (name or slug) and move through ``Category.writes``.

        ``form`` has already asked the manager whether a move is allowed; a
        refusal the manager still raises here (another change in between)
        is turned into a message by ``changeform_view``.
        """
        data = form.cleaned_data
        before = data.get("place_before")
        if not change:
            created = Category.writes.create_category(
                data["name"], parent=data.get("parent"), slug=data.get("slug") or None
            )
            if before is not None:
                Category.writes.move(created, before, "before")
            obj.pk, obj.slug, obj.parent_id, obj.ancestors = (
                created.pk, created.slug, created.parent_id, created.ancestors,
            )
            obj._state.adding = False
            return
        stored = Category.objects.get(pk=obj.pk)
        if "name" in form.changed_data or "slug" in form.changed_data:
            Category.writes.rename(stored, data["name"], slug=data.get("slug") or None)
        if before is not None:
            Category.writes.move(stored, before, "before")
        elif "parent" in form.changed_data:
            Category.writes.move(stored, data.get("parent"))
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
                Category.writes.check_deletable(category)
            except CategoryNotEmpty as error:
                protected.append(str(error))
        return [str(c) for c in objs], {Category._meta.verbose_name_plural: len(objs)}, set(), protected

    def delete_model(self, request, obj):
        Category.writes.delete_category(obj)


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


class AvailabilityFilter(admin.SimpleListFilter):
    """Products by the units available in their stock records (a SKU without one has none; a
    product with variants counts when one of its variants does)."""

    title = "availability"
    parameter_name = "available"

    def lookups(self, request, model_admin):
        return [("yes", "in stock"), ("low", "5 or fewer left"), ("no", "out of stock")]

    def queryset(self, request, queryset):
        # ``skus``: a product with variants is in stock when one of its variants is.
        if self.value() == "yes":
            return queryset.filter(skus__overlap=Inventory.objects.skus_available(1))
        if self.value() == "low":
            return queryset.filter(skus__overlap=Inventory.objects.skus_available(1, 5))
        if self.value() == "no":
            return queryset.exclude(skus__overlap=Inventory.objects.skus_available(1))
        return queryset


class ProductChangeList(ChangeList):
    """The product list, with the stock of the page's SKUs from one more read."""

    def get_results(self, request):
        super().get_results(request)
        self.result_list = list(self.result_list)
        stock = Inventory.objects.stock_many([sku for p in self.result_list for sku in p.sellable_skus])
        for product in self.result_list:
            # A product with variants: the sums over its variants' stock records.
            held = [stock[sku] for sku in product.sellable_skus if sku in stock]
            product.stock = (sum(h[0] for h in held), sum(h[1] for h in held)) if held else None


@admin.register(Product)
class ProductAdmin(VariantsAdminMixin, ProductImportExportMixin, admin.ModelAdmin):
    """Products: search, filters, sorting, pagination, stock; the form shows dollars and stores cents."""

    form = ProductAdminForm
    list_display = ["sku", "title", "type", "artist", "retail_price", "available", "reserved"]
    list_display_links = ["sku", "title"]
    list_filter = ["type", AvailabilityFilter, CategoryFilter]
    search_fields = ["title", "sku", "details__artist"]
    search_help_text = "Search titles, SKUs and artists."
    list_per_page = 50
    ordering = ["title"]
    inlines = [ProductImageInline]  # its images (catalog/admin/gallery.py)

    def _product_type(self, request, obj=None):
        """The ProductType of the form: the product's, or on add the one named by ``?type=``
        (or the submitted ``type``); None when none is chosen or there is no such type."""
        name = obj.type if obj is not None else (request.GET.get("type") or request.POST.get("type"))
        return ProductType.objects.by_name(name) if name else None

    def get_form(self, request, obj=None, change=False, **kwargs):
        """The product form built from the product's type (``product_form_for``)."""
        product_type = self._product_type(request, obj)
        kwargs["form"] = product_form_for(product_type)
        return super().get_form(request, obj, change=change, **kwargs)

    def add_view(self, request, form_url="", extra_context=None):
        """Adding a product starts by choosing its type (as django-oscar's product classes
        do): without a known ``?type=``, a page listing the types, each a link to the form."""
        if self._product_type(request) is None:
            from django.template.response import TemplateResponse

            context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                       "title": "Add product: choose its type",
                       "type_names": ProductType.objects.names(), "unknown": request.GET.get("type")}
            return TemplateResponse(request, "admin/catalog/product/choose_type.html", context)
        return super().add_view(request, form_url, extra_context)

    def get_fieldsets(self, request, obj=None):
        if obj is not None and not self.has_change_permission(request, obj):
            # Staff who may only look: the stored values, read-only (no form fields to fill).
            return [
                (None, {"fields": ["sku", "type", "title", "description", "category_paths"]}),
                ("Pricing", {"fields": ["list_price", "retail_price"]}),
                ("Shipping and details", {"fields": ["shipping_summary", "details_summary"]}),
            ]
        product_type = self._product_type(request, obj)
        sets = [
            (None, {"fields": ["sku", "type", "title", "description", "categories"]}),
            ("Pricing", {"fields": ["list_price", "retail_price", "tax_class"]}),
            ("Shipping", {"fields": ["weight", ("width", "height", "depth")]}),
        ]
        if product_type is not None and product_type.attributes:
            sets.append((f"{product_type.name} details",
                         {"fields": [field_name(a) for a in product_type.attributes],
                          "classes": ["product-details"]}))
        return sets

    def get_changelist(self, request, **kwargs):
        return ProductChangeList


    def save_related(self, request, form, formsets, change):
        """Save the product's images, then copy them into its document
        (``ProductImage.objects.sync``: one read, two writes): after every change of a
        product (its save wrote the copy it had read, which another staff member's
        change of its images may have made stale), and after an add with images."""
        super().save_related(request, form, formsets, change)
        if change or any(f.model is ProductImage and f.has_changed() for f in formsets):
            ProductImage.objects.sync(form.instance.pk)

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
        """The stored values of the type's attributes, ``label: value; ...`` (records counted)."""
        details = product.details or {}
        product_type = ProductType.objects.by_name(product.type)
        parts = []
        for attribute in (product_type.attributes if product_type else []):
            value = details.get(attribute.code)
            if value in (None, "", []):
                continue
            if attribute.kind == "records":
                parts.append(f"{len(value)} {attribute.name.lower()}")
                continue
            elif isinstance(value, list):
                value = ", ".join(map(str, value))
            parts.append(f"{attribute.name}: {value}")
        return "; ".join(parts) or "-"

    @admin.display(description="Artist")
    def artist(self, product):
        return (product.details or {}).get("artist", "") or ""

    @admin.display(description="Available")
    def available(self, product):
        """Units available (set by ProductChangeList); "-" without a stock record."""
        stock = getattr(product, "stock", None)
        return "-" if stock is None else stock[0]

    @admin.display(description="In carts")
    def reserved(self, product):
        """Units reserved in shoppers' carts (set by ProductChangeList)."""
        stock = getattr(product, "stock", None)
        return "-" if stock is None else stock[1]

    @admin.display(description="Retail price", ordering="pricing__retail")
    def retail_price(self, product):
        return money(product.pricing.retail) if product.pricing else ""

    class Media:
        css = {"all": ["shop/admin/lists.css"]}

