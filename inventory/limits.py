"""The per-client caps of the cart views: units of one SKU and open carts per client address.

``inventory.managers.holds.ClientHolds`` keeps the counts; this module names
them for a request (the client's address as django-axes and the rate limits
see it, ``core.clientip``) and words the refusals. Settings:
``CART_MAX_SKU_SHARE_PER_CLIENT`` percent of a SKU's stock, at most
``CART_MAX_SKU_UNITS_PER_CLIENT`` (units of one SKU in all the carts of one
client, ``units_cap``), ``CART_MAX_OPEN_CARTS_PER_CLIENT`` (carts one client
opened), both counted for ``CART_TIMEOUT`` seconds after the client's last add.
A client is an address, or an IPv6 /64 network (``core.clientip.client_key``).
"""

from django.conf import settings

from core.clientip import client_key

from .managers.holds import ClientHolds, carts_key, units_key
from .models import Inventory

UNITS_REFUSAL = ("You already hold the most units of “{title}” one shopper may reserve ({cap}). "
                 "They stay reserved for you until your cart expires or you check out.")
CARTS_REFUSAL = ("Too many carts were opened from your address just now. "
                 "Please use the cart you have, or try again later.")


class TooManyCarts(Exception):
    """The client's address opened ``CART_MAX_OPEN_CARTS_PER_CLIENT`` carts within ``CART_TIMEOUT``."""


def _address(request):
    return client_key(request) or "unknown"


def cap_for_stock(stocked):
    """The units one client may hold of a SKU with ``stocked`` units (int, or None for a SKU
    without a stock document): ``CART_MAX_SKU_SHARE_PER_CLIENT`` percent of them (rounded
    down, at least 1), never more than ``CART_MAX_SKU_UNITS_PER_CLIENT``, which alone applies
    without a stock document. An int >= 1; no read."""
    absolute = settings.CART_MAX_SKU_UNITS_PER_CLIENT
    share = None if stocked is None else stocked * settings.CART_MAX_SKU_SHARE_PER_CLIENT // 100
    if share is None or share >= stocked:  # a share of all the stock limits nothing the stock does not
        return absolute
    return max(1, min(absolute, share))


def units_cap(sku):
    """The units of ``sku`` one client may hold in its carts (int >= 1): ``cap_for_stock`` of
    its units stocked (available and reserved). One read."""
    return cap_for_stock(Inventory.objects.stocked(sku))


def take_units(request, sku, qty):
    """Count ``qty`` more units of ``sku`` for the request's client: ``(taken, cap)``, where
    ``taken`` is False (nothing counted) when that would pass ``units_cap(sku)``."""
    cap = units_cap(sku)
    return ClientHolds().take(units_key(_address(request), sku), qty, cap, settings.CART_TIMEOUT), cap


def give_back_units(request, sku, qty):
    """Uncount ``qty`` units of ``sku`` for the request's client (they left its cart, or never went in)."""
    if qty > 0:
        ClientHolds().give_back(units_key(_address(request), sku), qty)


def open_cart(request):
    """Count one more open cart for the request's client; raises ``TooManyCarts`` (nothing
    counted) over ``CART_MAX_OPEN_CARTS_PER_CLIENT``."""
    if not ClientHolds().take(carts_key(_address(request)), 1,
                              settings.CART_MAX_OPEN_CARTS_PER_CLIENT, settings.CART_TIMEOUT):
        raise TooManyCarts()
