"""The automatic offers' labels on the storefront: "3 for 2 on vinyl" on a product card, the
product page and beside a cart's lines.

Nothing here reads the database: the offers come from ``Offer.objects.live`` (the active
offers, kept 60 s in the ``default`` cache and emptied when an offer is saved or deleted),
and whether an offer covers a product is decided in Python from what a card already
carries (``listed_in``, ``type``, ``_id``, ``sku``, its variants' SKUs), as
``promotions.rules.matches`` decides it for a cart's line.

The listing's card grid is a kept fragment (``{% catalog_fragment %}``); ``key(at)`` names
the offers in effect at ``at`` (a digest of their documents), and is one of the fragment's
values, so the cards are rendered again when an offer is saved or deleted (at once in the
process that saved it, within 60 s in the others) or starts or ends (at its time: the dates
are checked on each request against the kept list).
"""

import hashlib
from types import SimpleNamespace

from core import clock

from .models import Offer
from .rules import matches


def live(at=None):
    """The offers in effect at ``at`` (UTC, default now), highest priority first (raw
    documents; ``Offer.objects.live``: no read while the kept list is warm)."""
    return Offer.objects.live(at or clock.now())


def key(offers):
    """A digest (str, "" for none) of ``offers`` (raw documents) naming everything a label
    shows or depends on: a card grid's fragment is rendered again when it changes."""
    if not offers:
        return ""
    text = repr([sorted((k, repr(v)) for k, v in offer.items()) for offer in offers])
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def _targets(product):
    """What an offer's range is checked against for ``product`` (a ``Product`` or a product
    document): one target per SKU it sells (its own, or each variant's)."""
    get = product.get if isinstance(product, dict) else (lambda name, default=None: getattr(product, name, default))
    product_id = get("_id") if isinstance(product, dict) else get("pk")
    base = {"product_id": product_id, "product_type": get("type", "") or "",
            "listed_in": tuple(get("listed_in") or ())}
    variants = get("variants") or ()
    skus = [(v.get("sku") if isinstance(v, dict) else getattr(v, "sku", None)) for v in variants] or [get("sku")]
    return [SimpleNamespace(sku=sku or "", **base) for sku in skus]


def labels_for(product, offers):
    """The names (list of str, by priority) of ``offers`` whose range covers ``product`` (a
    ``Product`` or a product document) or any of its variants. A minimum order is not a
    range: an offer with one is still named (the cart decides). Reads nothing."""
    targets = _targets(product)
    return [offer["name"] for offer in offers if any(matches(offer, target) for target in targets)]


def labels_for_lines(lines, offers, applied=()):
    """``[(line title, [offer names])]`` for the priced ``lines`` (``PricedLine``) that some of
    ``offers`` covers, leaving out the offers named in ``applied`` (already taken off)."""
    found = []
    for line in lines:
        names = [offer["name"] for offer in offers if offer["name"] not in applied and matches(offer, line)]
        if names:
            found.append((line.title, names))
    return found
