"""The automatic offers' labels on the storefront: "3 for 2 on vinyl" on a product card, the
product page and beside a cart's lines.

A page reads no offer to know whether any applies: the catalog's version document
``offers`` (a base scope, read with every request's versions: ``catalog/store/cache.py``) has a
token that ``publish`` writes whenever an offer is saved or deleted (``promotions.apps``):
a random part, the number of active offers and the times (ms since the epoch, UTC) at which
one starts or ends. So:

* no active offer (or none ever saved): no label, no read;
* the listing's card grid is a kept fragment (``{% catalog_fragment %}``) keyed by ``key()``:
  the token's random part and how many of those times have passed, so the cards are
  rendered again when an offer is saved or deleted (in every process at once) and when one
  starts or ends (at its time), and a warm grid reads no offer;
* rendering labels (a cold grid, the product page's buy box, the cart) takes the active
  offers from a copy kept in this process under the token (one read per token per process,
  ``Offer.objects.read_active``), their dates checked at each call.

Whether an offer covers a product is decided in Python from what a card already carries
(``listed_in``, ``type``, ``_id``, ``sku``, its variants' SKUs), as ``promotions.rules.matches``
decides it for a cart's line. Outside a request (a command, a test rendering a template
alone) ``live`` is ``Offer.objects.live`` and ``key`` None.
"""

import threading
import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

from catalog.models import CatalogVersion
from catalog.store.cache import OFFERS, changes_at, versions
from core import clock

from .managers import in_effect
from .models import Offer
from .rules import matches

SEPARATOR = "|"
_kept = {}  # {offers token: active offers (raw documents)}: one entry, the latest token seen
_lock = threading.Lock()


def publish():
    """Write the ``offers`` version token (``CatalogVersion.objects.set_token``) from the active
    offers as stored now: one read (their dates), one write. Called after an offer is saved or
    deleted."""
    offers = Offer.objects.collection.find({"active": True}, {"starts_at": 1, "ends_at": 1})
    count, times = 0, set()
    for offer in offers:
        count += 1
        for moment in (offer.get("starts_at"), offer.get("ends_at")):
            if moment is not None:
                times.add(int(clock.aware(moment).timestamp() * 1000))
    CatalogVersion.objects.set_token(OFFERS, SEPARATOR.join([uuid.uuid4().hex, str(count), *map(str, sorted(times))]))


def _state():
    """``(token, active offers count, times)`` of the current request's ``offers`` token, or None
    outside a request (no versions are read there)."""
    found = versions((OFFERS,))
    if found is None:
        return None
    parts = found[0].split(SEPARATOR)
    if len(parts) < 2 or not parts[1].isdigit():  # never published: no offer saved since the database began
        return found[0], 0, ()
    return found[0], int(parts[1]), tuple(int(p) for p in parts[2:] if p.isdigit())


def key(at=None):
    """What a kept fragment showing labels is keyed with (str): "" without active offers, else the
    token's random part and how many of the offers' start and end times ``at`` (UTC, default now)
    has passed; None outside a request."""
    state = _state()
    if state is None:
        return None
    token, count, times = state
    if not count:
        return ""
    now = int((at or clock.now()).timestamp() * 1000)
    _next_change(times, now)
    return f"{token.split(SEPARATOR)[0]}:{sum(1 for moment in times if moment <= now)}"


def _next_change(times, now):
    """Tell a page kept whole (``catalog.store.cache.changes_at``) that its labels change at the
    first of ``times`` (ms since the epoch, UTC) after ``now`` (ms), if any."""
    upcoming = [moment for moment in times if moment > now]
    if upcoming:
        changes_at(datetime.fromtimestamp(min(upcoming) / 1000, tz=timezone.utc))


def live(at=None):
    """The offers in effect at ``at`` (UTC, default now), highest priority first (raw
    documents): none and no read when the token says no offer is active; else from the copy
    kept under the current token (one read the first time a process sees the token)."""
    at = at or clock.now()
    state = _state()
    if state is None:
        return Offer.objects.live(at)
    token, count, times = state
    if not count:
        return []
    _next_change(times, int(at.timestamp() * 1000))
    offers = _kept.get(token)
    if offers is None:
        offers = Offer.objects.read_active()
        with _lock:
            _kept.clear()
            _kept[token] = offers
    return in_effect(offers, at)


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
