"""A product's images: several per product, ordered, each with alt text (django-oscar's
``ProductImage``, Saleor's ``ProductMedia``).

``ProductImage`` (collection ``product_images``) is what staff edit, one
document per image: ``{product_id, image, alt, position}``; the file is kept
through Django's storage API under ``products/``, checked on upload as covers
are (``catalog/media/covers.py``). The product's own document keeps a copy of
what the pages show, in position order, so that its page and its card need no
other read: ``images: [{path, alt}]``, and ``image``, the path of the first
(the cover the cards and the page show; "" without images: the generated
cover). ``ProductImage.objects.sync(product_id)`` writes that copy after
any change of a product's images.

The sizes shown are made by django-imagekit from the stored file the first
time each is asked for, as covers are: ``thumb`` (and ``thumb_2x``), the
small squares under the product page's cover, and ``large``, the whole
picture at most ``LARGE_SIZE`` pixels a side, which a thumbnail links to
(no JavaScript needed).

A variant may have its own picture (``Variant.image``, a path in the same storage, uploaded
in the admin's variant row: ``catalog/admin/variants.py``); the product page shows it as the
cover while the variant is chosen (``variant_covers``).
"""

from django.db import models
from django_mongodb_backend.models import EmbeddedModel
from imagekit.models import ImageSpecField
from imagekit.processors import ResizeToFit

from catalog.media.covers import THUMB_SIZE, cover_processors, validate_cover
from catalog.media.image_manager import ProductImageManager
from catalog.products.variants import line_title

#: The longest side, in pixels, of the size a thumbnail links to.
LARGE_SIZE = 1200


class GalleryImage(EmbeddedModel):
    """One image as the product's document keeps it: ``{path, alt}`` (``path`` in the
    default storage, as ``ProductImage.image`` names it)."""

    path = models.CharField(max_length=255)
    alt = models.CharField(max_length=300, blank=True, default="")


class ProductImage(models.Model):
    """An image of a product: the file, its alt text and its place (0 first; ties keep the
    order they were added in). Change them through the admin's product form or call
    ``ProductImage.objects.sync(product_id)`` after writing them."""

    product = models.ForeignKey("catalog.Product", on_delete=models.CASCADE, related_name="product_images")
    image = models.ImageField(
        upload_to="products/", validators=[validate_cover],
        help_text="JPEG, PNG or WebP, square is best; shown cropped to a square.",
    )
    alt = models.CharField(
        "alt text", max_length=300, blank=True, default="",
        help_text="What the picture shows, for shoppers who cannot see it. "
                  "Empty: \"Cover of <title>\" for the first, nothing for the others.",
    )
    position = models.PositiveIntegerField(default=0, help_text="0 first; the first is the cover.")

    thumb = ImageSpecField(source="image", processors=cover_processors(THUMB_SIZE),
                           format="JPEG", options={"quality": 85})
    thumb_2x = ImageSpecField(source="image", processors=cover_processors(THUMB_SIZE * 2),
                              format="JPEG", options={"quality": 80})
    large = ImageSpecField(source="image", processors=[ResizeToFit(LARGE_SIZE, LARGE_SIZE, upscale=False)],
                           format="JPEG", options={"quality": 85})

    objects = ProductImageManager()

    class Meta:
        db_table = "product_images"
        ordering = ["position", "id"]

    def __str__(self):
        return self.alt or self.image.name


def gallery(product):
    """The images ``product`` shows after its cover: ``ProductImage`` instances (not
    saved, no read) of its stored ``images`` but the first, in position order. ``[]``
    when it has one image or none, or when ``images`` was not read (a listing's card)."""
    if "images" in product.get_deferred_fields():
        return []
    return [ProductImage(image=entry.path, alt=entry.alt, position=index)
            for index, entry in enumerate((product.images or [])[1:], start=1)]


def variant_covers(product):
    """``[(variant SKU, picture)]`` of ``product``'s variants that have their own image
    (``Variant.image``), in their order: ``picture`` an unsaved instance of the product's
    model holding that image as its ``image``, the product's details and a title naming the
    variant ("Let There Be Rock — Vinyl"), which ``{% cover %}`` and ``large_url`` draw as a
    product's cover (its alt text "Cover of <that title>"; the sizes made by
    django-imagekit). No read; ``[]`` for a product without such variants."""
    model = type(product)
    return [(v.sku, model(image=v.image, title=line_title(product.title, v.options), details=product.details))
            for v in product.variants or () if getattr(v, "image", "")]


def cover_alt(product):
    """The alt text of ``product``'s cover: its first image's, or ``"Cover of <title>"``
    (also when ``images`` was not read)."""
    if "images" not in product.get_deferred_fields() and product.images and product.images[0].alt:
        return product.images[0].alt
    return f"Cover of {product.title}"


def large_url(product):
    """The URL of the large size of ``product``'s cover (made on first request), or ""
    without an uploaded image."""
    if not product.image:
        return ""
    return ProductImage(image=product.image.name).large.url
