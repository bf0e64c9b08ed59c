"""Signals of the orders app, for other apps (analytics records sales, the shop sends e-mails)."""

from django.dispatch import Signal

#: Sent once when an order is placed (``orders.checkout.place_order``). Keyword arguments:
#:   order        the ``Order``
#:   cart_id      the cart it was placed from (str)
#:   lines        list of dicts ``{"sku": str, "qty": int, "price": int cents per unit, "discount": int cents off the line}``
#:   customer     the shopper's e-mail address (str)
#:   session_key  the Django session key or "" (str)
#:   completed_at an aware UTC datetime
order_placed = Signal()

#: Sent once per refund that went through (``orders.refunds``). Keyword arguments:
#:   number   the order number (str)
#:   request  the refund's one-time key (str): the same refund never sends twice with another
#:   amount   cents refunded (int)
#:   at       an aware UTC datetime
order_refunded = Signal()

#: Sent after each status change made through ``orders.fulfilment``. Keyword arguments:
#:   order   the ``Order`` as it is afterwards
#:   status  the new status (str)
order_status_changed = Signal()
