"""Signals of carts, for other apps (analytics records additions); the cart imports no listener."""

from django.dispatch import Signal

#: Sent after units were added to a cart by a shopper (``inventory.views.add``). Keyword arguments:
#:   cart_id  the cart's id (str)
#:   sku      the SKU added (str)
#:   qty      the units added (int >= 1)
#:   request  the ``HttpRequest`` (its user or session identifies the shopper)
line_added = Signal()
