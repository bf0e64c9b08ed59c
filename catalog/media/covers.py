"""Product cover images: validation of uploads, the sizes shown, generated covers.

Staff upload a product's images in the admin (``catalog/media/gallery.py``, stored
through Django's storage API under ``products/``); the first is its cover
(``Product.image``, its path; ``covers/`` holds those uploaded before). django-imagekit
(``ImageSpecField``, Pillow underneath) makes the sizes the pages show the
first time each is asked for and keeps them in the same storage
(``CACHE/images/...``); later requests only read their URL. A product
without an image gets ``generated_cover``: an SVG with its title, artist
and a colour derived from its genre, built here (every text escaped) and
shown as a ``data:`` URI, so it costs no request and no file.
"""

import hashlib
from urllib.parse import quote
from xml.sax.saxutils import escape

from django.conf import settings
from django.core.exceptions import ValidationError
from imagekit.processors import ResizeToFill

# Cover image formats accepted on upload (Pillow's format names).
COVER_FORMATS = ("JPEG", "PNG", "WEBP")
# The square sizes made of each cover, in pixels: listing cards and the product page,
# each at 1x and 2x for srcset.
CARD_SIZE, PAGE_SIZE = 240, 480
# The square size, in pixels, of a product's other images under its cover (and 2x).
THUMB_SIZE = 96


def cover_processors(size):
    """imagekit processors for a ``size`` x ``size`` pixel square crop of the cover."""
    return [ResizeToFill(size, size)]


def validate_cover(upload):
    """Check an uploaded cover (a file Django's ``forms.ImageField`` has opened with Pillow).

    Refuses with ``ValidationError`` (a message for staff) a file over
    ``settings.COVER_MAX_BYTES`` bytes, a format other than JPEG, PNG or
    WebP, and an image smaller than ``COVER_MIN_PIXELS`` or larger than
    ``COVER_MAX_PIXELS`` on either side. Returns None.
    """
    if getattr(upload, "_committed", False):
        return  # a file already stored (the form left it unchanged): checked when it came
    if upload.size > settings.COVER_MAX_BYTES:
        raise ValidationError(
            f"The image is {upload.size / 1e6:.1f} MB; at most "
            f"{settings.COVER_MAX_BYTES / 1e6:.0f} MB is accepted.")
    # forms.ImageField opened the upload with Pillow (``.image``); a model's FieldFile wraps it.
    image = getattr(upload, "image", None) or getattr(getattr(upload, "file", None), "image", None)
    if image is None:
        raise ValidationError("Upload a JPEG, PNG or WebP image.")
    if image.format not in COVER_FORMATS:
        raise ValidationError(f"Upload a JPEG, PNG or WebP image (this is {image.format}).")
    width, height = image.size
    low, high = settings.COVER_MIN_PIXELS, settings.COVER_MAX_PIXELS
    if min(width, height) < low or max(width, height) > high:
        raise ValidationError(
            f"The image is {width}x{height} pixels; each side must be {low} to {high} pixels.")


# Background colours of generated covers, picked by genre (dark enough for white text: contrast >= 4.5).
PALETTE = ["#8e2420", "#1f4e79", "#2e6b30", "#6a1b9a", "#7a4b00", "#00695c", "#ad1457", "#37474f",
           "#4527a0", "#5d4037", "#283593", "#6b5b00"]


def genre_colour(genre):
    """A colour of ``PALETTE`` for ``genre`` (a str; the same genre always gets the same one)."""
    digest = hashlib.sha1((genre or "").casefold().encode(), usedforsecurity=False).digest()
    return PALETTE[digest[0] % len(PALETTE)]


def _lines(text, width, most):
    """``text`` cut into at most ``most`` lines of about ``width`` characters (the last ends
    with an ellipsis when cut)."""
    words, lines = (text or "").split(), []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][:width - 1] + "…"
    return lines


def generated_cover(title, artist="", genre=""):
    """An SVG cover (str) showing ``title`` and ``artist`` on the genre's colour.

    Every text is XML-escaped, so a title such as ``<script>`` shows as text.
    """
    colour = genre_colour(genre)
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 240" width="240" height="240">',
        f'<rect width="240" height="240" fill="{colour}"/>',
        '<rect x="16" y="16" width="208" height="208" fill="none" stroke="#ffffff" '
        'stroke-opacity="0.35" stroke-width="2"/>',
    ]
    y = 70
    for line in _lines(title, 16, 4):
        parts.append(f'<text x="28" y="{y}" fill="#ffffff" font-family="sans-serif" '
                     f'font-size="22" font-weight="700">{escape(line)}</text>')
        y += 28
    for line in _lines(artist, 22, 2):
        parts.append(f'<text x="28" y="{y + 12}" fill="#ffffff" font-family="sans-serif" '
                     f'font-size="15">{escape(line)}</text>')
        y += 20
    if genre:
        parts.append(f'<text x="28" y="206" fill="#ffffff" font-family="sans-serif" '
                     f'font-size="12" letter-spacing="1">{escape(genre.upper()[:28])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def generated_cover_uri(title, artist="", genre=""):
    """``generated_cover`` as a ``data:image/svg+xml`` URI (percent-encoded) for an ``<img src>``."""
    return "data:image/svg+xml;charset=utf-8," + quote(generated_cover(title, artist, genre))
