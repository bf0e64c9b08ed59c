"""Refunds of an order, full or partial, through the payment provider, recorded on the order.

Staff refund from the order's page in the admin (``OrderAdmin``): an amount in
cents up to what is left, and a reason. Each refund is recorded on the order
(``refunds``: who, when, how much, why, Stripe's refund id) and ``refunded``
sums them. Pressing the form's button twice refunds once: the form carries a
one-time key (``request``), and the order accepts one refund per key, in the
same conditional write that checks the amount left
(``Order.objects.reserve_refund``), before Stripe is asked. The key is also
the refund's ``Idempotency-Key``.

An order paid partly or wholly by gift cards (``Order.gift_card``) is refunded
to the card through Stripe first, up to what Stripe charged, and the rest is
credited back to its gift cards (``gift_card_part``, ``GiftCard.objects.refund_to``).

A refund made in Stripe's dashboard reaches the order through the
``charge.refunded`` webhook (``record_provider_refund``).
"""

import logging

from core import clock
from inventory.models import Inventory
from promotions.models import GiftCard

from .exceptions import OrderError
from .models import Order
from .payments import PaymentError, get_provider
from .signals import order_refunded

logger = logging.getLogger(__name__)


def refundable(order):
    """Cents still refundable on ``order`` (its total less what was refunded)."""
    return max(0, order.total - (order.refunded or 0))


def gift_card_part(order, amount):
    """Of a refund of ``amount`` cents of ``order``, the cents credited to its gift cards: what
    exceeds the part of the card payment (``total - gift_card``) not refunded yet."""
    charged = order.total - (order.gift_card or 0)
    to_card = min(amount, max(0, charged - (order.refunded or 0)))
    return amount - to_card


def _credit_gift_cards(order, cents, reason):
    """Credit ``cents`` back to ``order``'s gift cards, the last card used first (each at most
    what it paid). One write per card credited."""
    for paid in reversed(order.gift_cards or []):
        part = min(cents, paid.amount)
        if part > 0:
            GiftCard.objects.refund_to(paid.code, part, f"refund of order {order.number}: {reason}")
            cents -= part


def refund_order(number, amount, reason, by, request, provider=None):
    """Refund ``amount`` cents of order ``number`` (None: all that is left) for the admin form
    ``request`` (a one-time key); ``by`` is the staff username. Returns the refunded cents
    (0 when this request was already applied: a second press).

    Raises ``OrderError`` for no such order, no payment, an amount not in 1..left, or a
    provider refusal (nothing is then recorded).
    """
    order = Order.objects.get_by_number(number)
    if order is None:
        raise OrderError(f"No order {number}.")
    if (order.payment is None or not order.payment.reference) and not order.gift_card:
        raise OrderError(f"Order {number} has no payment to refund.")
    if any(entry.request == request for entry in order.refunds):
        return 0
    left = refundable(order)
    amount = left if amount is None else int(amount)
    if not 0 < amount <= left:
        raise OrderError(f"Order {number}: a refund must be between 1 and {left} cents (what is left).")
    if not Order.objects.reserve_refund(number, request, amount, by, reason[:300], order.total):
        # Another press of this form got there first, or another refund took what was left.
        fresh = Order.objects.get_by_number(number)
        if any(entry.request == request for entry in fresh.refunds):
            return 0
        raise OrderError(f"Order {number}: only {refundable(fresh)} cents are left to refund.")
    to_gift_cards = gift_card_part(order, amount)
    refund = {"id": "gift-card"}
    if amount > to_gift_cards:
        provider = provider or get_provider()
        try:
            refund = provider.refund(order.payment.reference, amount - to_gift_cards,
                                     idempotency_key=f"refund-{request}")
        except PaymentError as error:
            Order.objects.drop_refund(number, request, amount)
            raise OrderError(f"Order {number}: the refund was refused: {error}") from error
    if to_gift_cards:
        _credit_gift_cards(order, to_gift_cards, reason)
    Order.objects.confirm_refund(number, request, refund["id"])
    _refunded(number, request, amount)
    return amount


def _refunded(number, request, amount):
    """Send ``order_refunded`` (analytics counts the refund); a failing receiver is logged."""
    for receiver, result in order_refunded.send_robust(sender=Order, number=number, request=request,
                                                       amount=amount, at=clock.now()):
        if isinstance(result, Exception):
            logger.error("Order %s: refund %s not recorded by %s: %r", number, request, receiver, result)


def record_provider_refund(reference, refund_id, amount, reason=""):
    """Record Stripe's refund ``refund_id`` of ``amount`` cents on the order paid by
    ``reference`` (a PaymentIntent id) unless it is there already; True when added.

    While an admin refund of the order is pending (Stripe asked, its answer not yet
    recorded) nothing is added: that refund is the admin's to record."""
    added = Order.objects.add_provider_refund(reference, refund_id, amount, reason[:300])
    if added:
        order = Order.objects.get_by_payment(reference)
        if order is not None:
            _refunded(order.number, refund_id, amount)
    return added


def refund_lines(number, units, reason, by, request, restock=True, provider=None):
    """Refund ``units`` (``{line index: units}``) of order ``number``: what was paid for them
    (each line's price less its discount share plus its tax share, ``pricing.refund_of_units``
    on the shares stored at checkout), through the provider, for the form ``request`` (a
    one-time key; ``by`` the staff username). With ``restock`` the units then go back to the
    SKUs' stock, once (``restock_refund``).

    Returns the refunded cents (0 when this request was already applied). Raises
    ``OrderError`` for no such order, no payment, units not left to refund, more money than
    is left, or a provider refusal (nothing is then recorded: the reservation is taken back).
    """
    order = Order.objects.get_by_number(number)
    if order is None:
        raise OrderError(f"No order {number}.")
    if order.payment is None or not order.payment.reference:
        raise OrderError(f"Order {number} has no payment to refund.")
    amount = Order.objects.reserve_line_refund(number, request, units, by, reason[:300], restock)
    if not amount:
        return 0
    provider = provider or get_provider()
    try:
        refund = provider.refund(order.payment.reference, amount, idempotency_key=f"refund-{request}")
    except PaymentError as error:
        Order.objects.drop_refund(number, request, amount, units)
        raise OrderError(f"Order {number}: the refund was refused: {error}") from error
    Order.objects.confirm_refund(number, request, refund["id"])
    _refunded(number, request, amount)
    restock_refund(number, request)
    return amount


def restock_refund(number, request):
    """Put the units of refund ``request`` of order ``number`` back in stock if that is due:
    ``Order.objects.claim_restock`` (one conditional write: only one caller wins), then
    ``Inventory.objects.return_units``. Returns ``{sku: units}`` returned ({} if nothing was due)."""
    units = Order.objects.claim_restock(number, request)
    if units:
        Inventory.objects.return_units(units)
    return units
