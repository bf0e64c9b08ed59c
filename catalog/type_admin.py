"""The product types in the Django admin: a name and its attributes, saved through
``ProductType.objects.save_type`` (which rewrites the stored products a rename changes)."""

from django.contrib import admin

from .models import ProductType
from .type_forms import ProductTypeAdminForm


@admin.register(ProductType)
class ProductTypeAdmin(admin.ModelAdmin):
    """Product types: name, slug, attributes (``ProductTypeAdminForm``)."""

    form = ProductTypeAdminForm
    list_display = ["name", "slug", "attribute_codes"]
    search_fields = ["name"]
    fields = ["name", "slug", "attributes"]

    @admin.display(description="Attributes")
    def attribute_codes(self, product_type):
        return ", ".join(a.code for a in product_type.attributes or []) or "-"

    def save_model(self, request, obj, form, change):
        ProductType.objects.save_type(obj, getattr(form, "renamed_choices", None))
