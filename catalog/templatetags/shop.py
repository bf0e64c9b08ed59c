"""Template filters of the shop."""

from django import template
from django.conf import settings
from django.utils.html import format_html

from catalog.images import generated_cover_uri

register = template.Library()


class Availability:
    """What a page says of a product's stock: ``state`` (``in-stock``, ``low``, ``sold-out``),
    ``label`` ("In stock", "Only 3 left", "Sold out"), ``buyable`` and ``max_qty`` (the most
    the quantity box offers: the units available, at most ``CART_MAX_LINE_QTY``)."""

    def __init__(self, available):
        available = max(int(available or 0), 0)
        self.available = available
        self.buyable = available > 0
        self.max_qty = min(available, settings.CART_MAX_LINE_QTY)
        if not available:
            self.state, self.label = "sold-out", "Sold out"
        elif available <= settings.STOCK_LOW_THRESHOLD:
            self.state, self.label = "low", f"Only {available} left"
        else:
            self.state, self.label = "in-stock", "In stock"


@register.filter
def availability(product):
    """``Availability`` of a product read with its stock (``product.available``; None, no
    stock record, is sold out)."""
    return Availability(getattr(product, "available", None))


@register.filter
def variant_legend(product):
    """The legend of a product's variant choice: its variants' option names, capitalised
    (``"Format"``), or "Choose one" when they have none."""
    codes = list(dict.fromkeys(code for v in product.variants or () for code in (v.options or {})))
    return ", ".join(code.replace("_", " ").capitalize() for code in codes) or "Choose one"


def _details(product):
    details = product.details
    artist = getattr(details, "artist", "") or ""
    genres = [g for g in (getattr(details, "genre", None) or []) if g]
    return artist, genres[0] if genres else ""


@register.simple_tag
def cover(product, size="card"):
    """An ``<img>`` of the product's cover: the uploaded image in the ``size`` (``card`` or
    ``page``) with a 2x ``srcset`` and lazy loading, made by django-imagekit; without an
    image, the generated cover (title, artist, genre colour) as an SVG ``data:`` URI."""
    pixels = 240 if size == "card" else 480
    lazy = "lazy" if size == "card" else "eager"
    alt = f"Cover of {product.title}"
    if product.image:
        one, two = (product.cover_card, product.cover_card_2x) if size == "card" else (
            product.cover_page, product.cover_page_2x)
        return format_html(
            '<img class="cover" src="{}" srcset="{} 1x, {} 2x" width="{}" height="{}" '
            'alt="{}" loading="{}" decoding="async">',
            one.url, one.url, two.url, pixels, pixels, alt, lazy)
    artist, genre = _details(product)
    return format_html(
        '<img class="cover generated" src="{}" width="{}" height="{}" alt="{}" loading="{}">',
        generated_cover_uri(product.title, artist, genre), pixels, pixels, alt, lazy)
