"""Template filters of a product's images (``catalog/media/gallery.py``): what its page shows
after the cover, and the large size its cover links to. They read only the product."""

from django import template
from django.utils.html import format_html

from catalog.media import gallery
from catalog.media.covers import THUMB_SIZE

register = template.Library()


@register.filter
def more_images(product):
    """``product``'s images after its cover (``gallery.gallery``), each with ``thumb``,
    ``thumb_2x`` and ``large`` sizes and an alt text (``"<title>, image <n>"`` when staff
    gave none, so that each thumbnail's link is named)."""
    pictures = gallery.gallery(product)
    for picture in pictures:
        picture.alt = picture.alt or f"{product.title}, image {picture.position + 1}"
    return pictures


@register.filter
def variant_covers(product):
    """``[(variant SKU, picture)]`` of ``product``'s variants with their own image
    (``gallery.variant_covers``): each drawn by ``{% cover picture "page" %}``."""
    return gallery.variant_covers(product)


@register.filter
def large_url(product):
    """The URL of the large size of ``product``'s cover, "" without an uploaded image."""
    return gallery.large_url(product)


@register.simple_tag
def thumbnail(picture):
    """A link to ``picture``'s large size (a ``ProductImage`` of ``more_images``) around its
    ``THUMB_SIZE`` square, with a 2x ``srcset``, its alt text and lazy loading."""
    return format_html(
        '<a href="{}"><img class="thumb" src="{}" srcset="{} 1x, {} 2x" width="{}" height="{}" '
        'alt="{}" loading="lazy" decoding="async"></a>',
        picture.large.url, picture.thumb.url, picture.thumb.url, picture.thumb_2x.url,
        THUMB_SIZE, THUMB_SIZE, picture.alt)
