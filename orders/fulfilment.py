"""After the sale: shipping, delivery, cancellation with refund and stock return.

Each step is a conditional status change on ``Order.objects.transition``
(one write), so a step runs once however often it is asked for. Staff call
these from the orders admin.
"""

import logging

from inventory.models import Inventory

from .emails import send_shipment_notice, send_shipping_notice
from .exceptions import InvalidTransition, OrderError
from .models import Order
from .refunds import refund_order, refundable
from .signals import order_status_changed

logger = logging.getLogger(__name__)


def _changed(order):
    order_status_changed.send_robust(sender=Order, order=order, status=order.status)
    return order


def mark_paid(number, note=""):
    """placed -> paid (a payment taken later). Returns the Order. Raises ``InvalidTransition``."""
    return _changed(Order.objects.transition(number, Order.PAID, note))


def mark_shipped(number, note=""):
    """paid -> shipped, then the shipping notice is e-mailed. Returns the Order.

    Raises ``InvalidTransition`` (not paid: placed, cancelled, already
    shipped...). A failing mail server is logged; the order stays shipped.
    """
    order = Order.objects.transition(number, Order.SHIPPED, note)
    try:
        send_shipping_notice(order)
    except Exception:
        logger.exception("Order %s: shipping notice not sent.", number)
    return _changed(order)


def ship(number, units, carrier, tracking, shipped_on, by=""):
    """Ship ``units`` (``{line index: units}``) of order ``number`` as one shipment by
    ``carrier`` with ``tracking`` number, sent on ``shipped_on`` (a date); ``by`` the staff
    username. The status follows from the lines (partly shipped / shipped) in the same
    write (``Order.objects.add_shipment``); then the shopper is e-mailed the shipment with
    its tracking link (a failing mail server is logged; the shipment stays recorded).

    Returns ``(Order, Shipment)``. Raises ``OrderError`` / ``InvalidTransition`` as
    ``add_shipment`` does (nothing recorded then).
    """
    order, shipment = Order.objects.add_shipment(number, units, carrier, tracking, shipped_on, by=by)
    try:
        send_shipment_notice(order, shipment)
    except Exception:
        logger.exception("Order %s: notice of shipment %s not sent.", number, shipment.number)
    return _changed(order), shipment


def mark_delivered(number, note=""):
    """shipped -> delivered. Returns the Order. Raises ``InvalidTransition``."""
    return _changed(Order.objects.transition(number, Order.DELIVERED, note))


def cancel(number, note="", provider=None):
    """Cancel an order not yet shipped: its units go back to stock, its payment is refunded.

    1. placed/paid -> cancelled (one conditional write: a shipped order, or
       one another click cancelled first, raises ``InvalidTransition`` and
       nothing else happens).
    2. ``Inventory.objects.return_units`` puts the lines' units back (one
       ``bulk_write``), then ``Order.objects.mark_restocked`` records it, so
       ``check_inventory`` no longer counts them as sold.
    3. What is left of the payment is refunded (``refunds.refund_order``, default
       provider ``get_provider()``), then cancelled -> refunded. A provider error leaves the order cancelled
       (stock returned) and raises ``OrderError``; ``refund`` retries it.

    Returns the Order (``refunded``).
    """
    order = Order.objects.transition(number, Order.CANCELLED, note)
    units = {}
    for line in order.lines:
        units[line.sku] = units.get(line.sku, 0) + line.qty
    Inventory.objects.return_units(units)
    Order.objects.mark_restocked(number)
    _changed(order)
    return refund(number, provider=provider)


def refund(number, provider=None):
    """Refund a cancelled order through the payment provider, then cancelled -> refunded.

    Raises ``OrderError`` when the provider fails (the order stays
    cancelled), ``InvalidTransition`` when the order is not cancelled.
    """
    order = Order.objects.get_by_number(number)
    if order is None:
        raise OrderError(f"No order {number}.")
    if order.status != Order.CANCELLED:
        raise InvalidTransition(number, order.status, Order.REFUNDED)
    if refundable(order):
        # One key per order: a second cancel (or a retry after a failure) refunds nothing more.
        refund_order(number, None, "order cancelled", by="cancel", request=f"cancel-{number}", provider=provider)
    return _changed(Order.objects.transition(number, Order.REFUNDED, f"refunded {order.payment.reference}"))
