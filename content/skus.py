"""The SKUs of a hand-picked collection (``HomeBlock.skus``), as staff type them."""

import re

from django.core.exceptions import ValidationError

#: What a SKU may hold in a hand-picked collection (the catalog's SKUs: CHK-0001, CHK-0003-LP).
SKU_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
#: At most this many SKUs in a hand-picked collection, and cards in any row.
MAX_CARDS = 12


def parse_skus(text):
    """The SKUs of a hand-picked collection's ``text`` (separated by commas, spaces or new lines),
    in order, each once: a list of str. Raises ``ValidationError`` for one that is no SKU or for
    more than ``MAX_CARDS``."""
    skus = []
    for sku in re.split(r"[\s,]+", text or ""):
        if not sku:
            continue
        if not SKU_PATTERN.match(sku):
            raise ValidationError(f"{sku[:40]!r} is not a SKU (letters, digits, '.', '_', '-').")
        if sku not in skus:
            skus.append(sku)
    if len(skus) > MAX_CARDS:
        raise ValidationError(f"At most {MAX_CARDS} products ({len(skus)} given).")
    return skus
