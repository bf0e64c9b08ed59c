"""Signals the checkout sends, for other apps (analytics records sales from them)."""

from django.dispatch import Signal

#: Sent once when a checkout completes (the cart is ``complete``).
#: Keyword arguments:
#:   cart_id     the cart's id (str)
#:   lines       list of dicts ``{"sku": str, "qty": int, "price": int cents per unit}``
#:   customer    the shopper's e-mail address (str)
#:   session_key the Django session key or "" (str)
#:   completed_at an aware UTC datetime
order_completed = Signal()
