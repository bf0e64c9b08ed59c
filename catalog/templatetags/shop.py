"""Template filters of the shop."""

import datetime
from urllib.parse import quote

from django import template
from django.urls import reverse
from django.utils.formats import date_format
from django.conf import settings
from django.utils.html import format_html

from catalog.media.gallery import cover_alt
from catalog.media.covers import generated_cover_uri
from catalog.models import ProductType
from catalog.products.variants import variant_url

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
def duration(milliseconds):
    """A duration in milliseconds as ``m:ss`` (or ``h:mm:ss`` past an hour); "" for none."""
    if not isinstance(milliseconds, (int, float)) or isinstance(milliseconds, bool):
        return ""
    seconds = int(milliseconds) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


@register.simple_tag
def genre_url(genre, product_type):
    """The genre page of ``genre`` for products of ``product_type`` (a type's name): ``?type=``
    unless it is the genre pages' default type (``settings.CATALOG_GENRE_TYPE``)."""
    url = reverse("catalog:genre", args=[genre])
    if product_type != settings.CATALOG_GENRE_TYPE:
        url += "?type=" + quote(str(product_type), safe="/")
    return url


#: The attributes the product page shows in their own way (links, the tracks' table).
SHOWN_APART = frozenset({"artist", "genre", "issue_date", "director", "actor", "rating", "tracks"})


def _shown(attribute, value):
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, datetime.datetime):
        return date_format(value, "j F Y")
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if attribute.kind == "number" and attribute.unit:
        return f"{value} {attribute.unit}"
    return str(value)


@register.simple_tag
def product_details(product):
    """What the product page shows of ``product``'s details beyond its own rows: ``{"rows":
    [(label, text)], "tracks_label": str}`` from its type's attributes (one cached read of
    the type; none for a product of an unknown type)."""
    product_type = ProductType.objects.by_name(product.type)
    if product_type is None:
        return {"rows": [], "tracks_label": "Tracks"}
    details = product.details or {}
    rows = [(a.name, _shown(a, details[a.code])) for a in product_type.attributes
            if a.code not in SHOWN_APART and a.kind != "records" and details.get(a.code) not in (None, "", [])]
    tracks = product_type.attribute("tracks")
    return {"rows": rows, "tracks_label": tracks.name if tracks is not None else "Tracks"}


@register.filter
def card_shown(product):
    """What a listing card shows the price and stock of: the variant a listing narrowed by a
    variant attribute picked (``product.shown_variant``, ``catalog.listings.cards``), else
    ``product``."""
    return getattr(product, "shown_variant", None) or product


@register.filter
def card_url(product):
    """Where a listing card links: the product page, with the variant it shows chosen
    (``?variant=<SKU>``) when it shows one (``card_shown``)."""
    variant = getattr(product, "shown_variant", None)
    return product.get_absolute_url() if variant is None else variant_url(product, variant.sku)


@register.filter
def variant_legend(product):
    """The legend of a product's variant choice: its variants' option names, capitalised
    (``"Format"``), or "Choose one" when they have none."""
    codes = list(dict.fromkeys(code for v in product.variants or () for code in (v.options or {})))
    return ", ".join(code.replace("_", " ").capitalize() for code in codes) or "Choose one"


def _details(product):
    details = product.details or {}
    artist = details.get("artist") or ""
    genres = details.get("genre") or []
    genres = [g for g in (genres if isinstance(genres, list) else [genres]) if g]
    return artist, genres[0] if genres else ""


@register.simple_tag
def cover(product, size="card", loading=None):
    """An ``<img>`` of the product's cover: the uploaded image in the ``size`` (``card`` or
    ``page``) with a 2x ``srcset``, made by django-imagekit; without an image, the generated
    cover (title, artist, genre colour) as an SVG ``data:`` URI. ``loading``: ``"lazy"`` or
    ``"eager"``; by default lazy for a card, eager for the page (a hidden cover of the page,
    a variant's not chosen, is lazy: fetched once shown)."""
    pixels = 240 if size == "card" else 480
    lazy = loading if loading in ("lazy", "eager") else "lazy" if size == "card" else "eager"
    alt = cover_alt(product)  # its first image's alt text, or "Cover of <title>"
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
