"""A product's images in its admin form: an inline of ``ProductImage`` rows (file, alt
text, position), each upload checked before anything is stored.

* ``PictureField``: Django's ``forms.ImageField`` that first refuses a
  decompression bomb (an image declaring more pixels than Pillow's
  ``Image.MAX_IMAGE_PIXELS``, whose decoding would take gigabytes) with a form
  error, where Pillow alone would only warn below twice that limit.
* ``ProductImageInline``: the ordered rows. A product form posted without
  them (its management form absent: a script posting the product's fields
  only) leaves the images as they are. After the form is saved, the admin
  copies the images into the product's document
  (``ProductImage.objects.sync``, ``catalog/admin/products.py``).
"""

import io
import warnings

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet
from django.utils.html import format_html
from PIL import Image

from catalog.media.gallery import ProductImage
from catalog.media.covers import THUMB_SIZE


class PictureField(forms.ImageField):
    """An image upload that refuses, with a form error, a file declaring more pixels than
    Pillow's decompression-bomb limit (``PIL.Image.MAX_IMAGE_PIXELS``), before any decoding;
    then Django's checks (a readable image) and the model field's (``validate_cover``)."""

    def to_python(self, data):
        if data not in self.empty_values and hasattr(data, "read"):
            # As Django's ImageField reads it: the temporary file, or the bytes in memory.
            if hasattr(data, "temporary_file_path"):
                source = data.temporary_file_path()
            else:
                source = io.BytesIO(data.read())
                data.seek(0)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", Image.DecompressionBombWarning)
                    Image.open(source).close()  # reads the header only
            except (Image.DecompressionBombError, Image.DecompressionBombWarning):
                raise forms.ValidationError(
                    f"The image has more than {Image.MAX_IMAGE_PIXELS:,} pixels; it is refused.",
                    code="decompression_bomb") from None
            except Exception:  # noqa: BLE001 - not an image at all: Django's own check says so
                return super().to_python(data)
        return super().to_python(data)


class ProductImageForm(forms.ModelForm):
    """One image of a product: the file (``PictureField``), its alt text and position."""

    image = PictureField(help_text=ProductImage._meta.get_field("image").help_text)

    class Meta:
        model = ProductImage
        fields = ["image", "alt", "position"]


class ProductImageFormSet(BaseInlineFormSet):
    """The product's image rows; a new row's position is after the stored ones. Posted
    without its management form, it has no rows and changes nothing (the product's other
    fields are saved as posted)."""

    def get_form_kwargs(self, index):
        """A new row (``index`` past the stored rows, or None: the admin's template row)
        starts at the position after the last stored image."""
        kwargs = super().get_form_kwargs(index)
        if index is None or index >= self.initial_form_count():
            stored = [image.position for image in self.get_queryset()]
            kwargs["initial"] = {"position": max(stored) + 1 if stored else 0}
        return kwargs

    def __init__(self, data=None, files=None, **kwargs):
        super().__init__(data, files, **kwargs)
        total = f"{self.prefix}-TOTAL_FORMS"
        if self.is_bound and total not in self.data:
            self.data = self.data.copy()
            self.data.update({total: "0", f"{self.prefix}-INITIAL_FORMS": "0"})


class ProductImageInline(admin.TabularInline):
    """The images of a product, in position order (0 first: the cover), each with alt text."""

    model = ProductImage
    form = ProductImageForm
    formset = ProductImageFormSet
    fields = ["preview", "image", "alt", "position"]
    readonly_fields = ["preview"]
    extra = 1
    verbose_name = "image"
    verbose_name_plural = "images (the first, position 0, is the cover)"

    @admin.display(description="Shown as")
    def preview(self, image):
        """A thumbnail of a stored image (made by django-imagekit), "" for a new row."""
        if not image.pk or not image.image:
            return ""
        return format_html('<img src="{}" width="{}" height="{}" alt="{}">',
                           image.thumb.url, THUMB_SIZE, THUMB_SIZE, image.alt)
