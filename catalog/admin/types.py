"""The product types in the Django admin: a name and its attributes, saved through
``ProductType.objects.save_type`` (which rewrites the stored products a rename changes)."""

from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import reverse

from catalog.models import ProductType
from catalog.admin.type_forms import ProductTypeAdminForm


@admin.register(ProductType)
class ProductTypeAdmin(admin.ModelAdmin):
    """Product types: name, slug, attributes (``ProductTypeAdminForm``)."""

    form = ProductTypeAdminForm
    list_display = ["name", "slug", "attribute_codes"]
    search_fields = ["name"]
    fields = ["name", "slug", "tax_class", "attributes"]

    @admin.display(description="Attributes")
    def attribute_codes(self, product_type):
        return ", ".join(a.code for a in product_type.attributes or []) or "-"

    def save_model(self, request, obj, form, change):
        ProductType.objects.save_type(obj, getattr(form, "renamed_choices", None))

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # one at a time: each is checked for products
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        """Deleting a type that products still have is refused with a message (nothing changes)."""
        product_type = self.get_object(request, object_id)
        if product_type is not None:
            used = ProductType.objects.product_count(product_type)
            if used:
                self.message_user(request, f"{product_type.name} cannot be deleted: {used} product(s) "
                                  "have this type.", messages.ERROR)
                return HttpResponseRedirect(reverse("admin:catalog_producttype_change", args=[object_id]))
        return super().delete_view(request, object_id, extra_context)

    def delete_model(self, request, obj):
        ProductType.objects.delete_type(obj)
