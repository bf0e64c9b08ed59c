"""The variants of a product in the admin: a formset under the product form (SKU, options,
prices), kept apart from the product form itself so that the form built from the product type
can take it as it is.

``VariantsFormMixin`` goes before ``forms.ModelForm`` in the product form's bases: it builds
``variant_formset`` (prefix ``variants``), validates it with the form (each variant's options
by ``catalog.products.attributes.clean_variant_options`` for the chosen type; every SKU used once
across the product, its variants and every other product: ``Product.objects.sku_owners``,
one read) and sets ``product.variants`` on save, a variant's new image stored then (in the
default storage under ``products/``, as the product's images; its path on the variant); a
post without the formset's rows leaves the stored variants as they are. ``VariantsAdminMixin`` goes before
``admin.ModelAdmin``: it shows the formset (``admin/catalog/product/change_form.html``) and,
after a save, gives every SKU the product sells a stock record (0 units; stock is then set in
the stock admin, as for any new product). A form with an error writes nothing.
"""

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from core.money import cents, dollars

from catalog.admin.gallery import PictureField
from catalog.media.covers import validate_cover
from catalog.media.gallery import ProductImage
from catalog.models import Pricing, Product, ProductType, Variant
from catalog.products.variants import clean_variant_options
from inventory.models import Inventory

#: Variant rows offered empty below the stored ones.
EXTRA_ROWS = 2


def parse_options(text):
    """``"format: Vinyl"`` lines as ``{"format": "Vinyl"}`` (in order). Raises
    ``ValidationError`` for a line without ``code: value`` or a code given twice."""
    options = {}
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        code, colon, value = line.partition(":")
        code, value = code.strip(), value.strip()
        if not colon or not code:
            raise ValidationError(f"Write each option as “code: value”, not “{line.strip()}”.")
        if code in options:
            raise ValidationError(f"The option “{code}” is given twice.")
        options[code] = value
    return options


def format_options(options):
    """``{"format": "Vinyl"}`` as the options box shows it: ``"format: Vinyl"``, one a line."""
    return "\n".join(f"{code}: {value}" for code, value in (options or {}).items())


class StoredPicture(str):
    """The path of a variant's stored image (a str) with its ``url``, as the image field's
    initial value: Django's ``ClearableFileInput`` then shows a link to it and a "Clear" box."""

    @property
    def url(self):
        return ProductImage._meta.get_field("image").storage.url(str(self))


def store_picture(upload):
    """Store ``upload`` (an uploaded image, checked) as the product images are stored
    (``ProductImage.image``: the default storage, under ``products/``); returns its path."""
    field = ProductImage._meta.get_field("image")
    return field.storage.save(field.generate_filename(None, upload.name), upload, max_length=field.max_length)


class VariantForm(forms.Form):
    """One variant: its SKU, options (``code: value`` lines), prices in dollars and its own image
    (optional: ``PictureField``, checked as a product's images are; a stored one kept, replaced
    or cleared), which the product page shows as the cover while the variant is chosen."""

    sku = forms.CharField(label="SKU", max_length=64)
    options = forms.CharField(label="Options", widget=forms.Textarea(attrs={"rows": 2, "cols": 24}),
                              required=False, help_text="One “code: value” a line, e.g. “format: Vinyl”.")
    list_price = forms.DecimalField(label="List price ($)", max_digits=9, decimal_places=2, min_value=0)
    retail_price = forms.DecimalField(label="Retail price ($)", max_digits=9, decimal_places=2, min_value=0)
    image = PictureField(label="Image", required=False,
                         help_text="Optional: shown as the cover while this variant is chosen.")

    def clean_sku(self):
        sku = self.cleaned_data["sku"].strip()
        if not sku:
            raise ValidationError("This field is required.")
        return sku

    def clean_options(self):
        return parse_options(self.cleaned_data.get("options"))

    def clean_image(self):
        """A new upload checked as covers are (``validate_cover``); the stored image's path when
        kept; False when cleared; None for none."""
        image = self.cleaned_data.get("image")
        if isinstance(image, UploadedFile):
            validate_cover(image)
        return image

    def clean(self):
        cleaned = super().clean()
        low, high = cleaned.get("retail_price"), cleaned.get("list_price")
        if low is not None and high is not None and low > high:
            self.add_error("retail_price", "The retail price cannot be above the list price.")
        return cleaned

    def variant(self, image=None):
        """The ``Variant`` of a valid form (prices in cents), its image the path ``image`` when
        given (a new upload, stored by the caller), else the stored one kept ("" cleared or none)."""
        data = self.cleaned_data
        kept = data.get("image")
        if image is None:
            image = str(kept) if isinstance(kept, str) else ""
        return Variant(sku=data["sku"], options=data["options"], image=image,
                       pricing=Pricing.from_prices(cents(data["list_price"]), cents(data["retail_price"])))


class BaseVariantFormSet(forms.BaseFormSet):
    """The variant rows: a blank row is ignored, a row marked for deletion removed."""

    def kept_forms(self):
        """The valid rows that are neither blank (no SKU: an extra row left empty) nor marked
        for deletion, in order. A stored row left as it was is kept."""
        return [form for form in self.forms
                if form.cleaned_data.get("sku") and not (self.can_delete and self._should_delete_form(form))]


VariantFormSet = forms.formset_factory(VariantForm, formset=BaseVariantFormSet, extra=EXTRA_ROWS,
                                       can_delete=True)


class VariantsFormMixin:
    """The variants formset of the product form (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        stored = list(getattr(self.instance, "variants", None) or [])
        initial = [{"sku": v.sku, "options": format_options(v.options),
                    "list_price": dollars(v.pricing.list), "retail_price": dollars(v.pricing.retail),
                    "image": StoredPicture(v.image) if getattr(v, "image", "") else None}
                   for v in stored]
        # A post without the variants' rows (their management form) leaves the variants as
        # they are: a client that does not show them changes the product alone.
        self.variants_posted = self.is_bound and "variants-TOTAL_FORMS" in self.data
        self.variant_formset = VariantFormSet(self.data if self.variants_posted else None,
                                              self.files if self.variants_posted else None,
                                              initial=initial, prefix="variants")
        self.variants = stored

    def clean(self):
        cleaned = super().clean()
        formset = self.variant_formset
        if not self.variants_posted:
            self._check_skus(cleaned.get("sku"), [])
            return cleaned
        if not formset.is_valid():
            self.add_error(None, "Correct the errors in the variants below.")
            return cleaned
        rows = formset.kept_forms()
        product_type = ProductType.objects.by_name(cleaned.get("type"))
        for form in rows:
            try:
                form.cleaned_data["options"] = clean_variant_options(product_type, form.cleaned_data["options"])
            except ValidationError as error:
                form.add_error("options", [f"{code}: {' '.join(messages)}" for code, messages
                                           in error.message_dict.items()])
        self._check_skus(cleaned.get("sku"), rows)
        if any(form.errors for form in rows):
            self.add_error(None, "Correct the errors in the variants below.")
            return cleaned
        self.variant_rows = rows
        return cleaned

    def _check_skus(self, sku, rows):
        """Every SKU once: across the rows, against the product's own SKU, and against every
        other product and variant (one read)."""
        seen = {sku} if sku else set()
        skus = [form.cleaned_data["sku"] for form in rows]
        for form, variant_sku in zip(rows, skus):
            if variant_sku in seen:
                form.add_error("sku", "This SKU is used twice in this product.")
            seen.add(variant_sku)
        owners = Product.objects.sku_owners(seen)
        mine = self.instance.pk
        for form, variant_sku in zip(rows, skus):
            owner = owners.get(variant_sku)
            if owner is not None and owner[0] != mine:
                form.add_error("sku", f"This SKU is already used by product {owner[1]}.")
        owner = owners.get(sku)
        # Another product's own SKU is the model's unique check (run after clean()); here,
        # another product's variant's.
        if sku and owner is not None and owner[0] != mine and owner[1] != sku and "sku" not in self.errors:
            self.add_error("sku", f"This SKU is already used by a variant of product {owner[1]}.")

    def save(self, commit=True):
        """The product with its variants; a variant's new image is stored first
        (``store_picture``)."""
        product = super().save(commit=False)
        rows = getattr(self, "variant_rows", None)
        if rows is not None:
            self.variants = [form.variant(store_picture(form.cleaned_data["image"])
                                          if isinstance(form.cleaned_data.get("image"), UploadedFile) else None)
                             for form in rows]
        product.variants = list(self.variants)
        if commit:
            product.save()
        return product


class VariantsAdminMixin:
    """The product admin's part for variants (see the module docstring)."""

    change_form_template = "admin/catalog/product/change_form.html"

    def save_model(self, request, obj, form, change):
        """Save the product, then give each SKU it sells a stock record with 0 units when it
        has none (``Inventory.objects.ensure_stock``: one read, and one insert of the new
        ones). A product with variants sells only theirs: its own SKU gets none."""
        super().save_model(request, obj, form, change)
        Inventory.objects.ensure_stock(obj.sellable_skus, 0)
