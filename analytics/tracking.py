"""What the storefront calls to record shoppers' events: one call per place, through ``Event.objects``.

* ``catalog.views.product`` calls ``record_product_view(request, sku)``.
* The cart calls ``record_add_to_cart(request, sku, qty)`` after a successful
  add (inventory's code; one line where the add succeeds).
* Sales come from ``orders.signals.order_placed`` (``receivers.py``).
"""

from .models import Event
from .receivers import request_shopper_id


def record_product_view(request, sku):
    """Record that the shopper making ``request`` viewed product ``sku`` (one write)."""
    Event.objects.record_view(sku, userid=request_shopper_id(request))


def record_add_to_cart(request, sku, qty=1):
    """Record that the shopper making ``request`` put ``qty`` of ``sku`` in the cart (one write).

    Raises ValueError for ``qty < 1``.
    """
    Event.objects.record_add_to_cart(sku, qty, userid=request_shopper_id(request))
