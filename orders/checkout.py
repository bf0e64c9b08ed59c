"""Placing an order: seed 003's checkout, priced on the server, written as an order document.

``place_order`` is the one way a cart becomes an order; the checkout page
and the tests call it. The cart's status changes are ``Cart.objects``'
(``lock_for_checkout``, ``unlock_checkout``, ``finish_checkout``), the
reservations' ``Inventory.objects``': this module decides when, charges
and refunds through the payment provider (``payments.py``) and writes the
order (``Order.objects``).
"""

import logging

from catalog.models import Product
from inventory.exceptions import CartInactive
from inventory.models import Cart, Inventory
from shop import clock

from . import pricing
from .exceptions import CartChanged, EmptyCart
from .models import Order
from .signals import order_placed

logger = logging.getLogger(__name__)


def lock_cart(cart_id):
    """Seed 003 ``checkout``'s first steps: lock the cart and check it against its reservations.

    1. ``Cart.objects.lock_for_checkout``: active -> pending, returning the cart.
    2. Compare the lines with the cart's reservations
       (``Inventory.objects.reservations_of``, one read): a line whose units
       are not reserved (a change in flight or a crashed add) unlocks the
       cart and raises ``CartChanged``, so nothing unreserved is ever sold.

    Returns the raw cart document (status ``pending``). 2 round trips
    whatever the number of lines (3 with an unlock). Raises
    ``CartInactive`` (not active: expired, in checkout, complete),
    ``EmptyCart``, ``CartChanged``. The caller charges, then calls
    ``Cart.objects.finish_checkout`` or ``unlock_checkout``.
    """
    cart = Cart.objects.lock_for_checkout(cart_id)
    if cart is None:
        raise CartInactive("This cart is no longer active. Nothing was charged.")
    wanted = {}
    for line in cart["items"]:
        wanted[line["sku"]] = wanted.get(line["sku"], 0) + line["qty"]
    if not wanted:
        Cart.objects.unlock_checkout(cart_id)
        raise EmptyCart()
    try:
        reserved = Inventory.objects.reservations_of(cart_id)
    except Exception:
        Cart.objects.unlock_checkout(cart_id)
        raise
    if reserved != wanted:
        Cart.objects.unlock_checkout(cart_id)
        raise CartChanged()
    return cart


def place_order(cart_id, provider, card, name, email, address=None, user_id="", session_key=""):
    """Check out cart ``cart_id`` and write its order; returns the ``Order`` (status ``paid``).

    ``card`` is a ``payments.Card``; ``address`` a dict of ``Address``'s
    fields (or None); ``user_id`` the shopper's account id ("" for a guest).

    1. ``lock_cart``: active -> pending, and the lines compared with the
       reservations (2 round trips).
    2. The products' shipping weights (one read); the totals with shipping
       and tax (``pricing.totals``), from the cart's prices, never a form's.
    3. ``provider.charge(total cents, card, reference=cart_id)``; a decline
       or provider error unlocks the cart (reservations intact) and is
       re-raised.
    4. ``Cart.objects.finish_checkout`` (pending -> complete, only if still
       pending); when ``expire_carts`` took the cart meanwhile the charge is
       refunded and ``CartInactive`` raised.
    5. The order number from the counter (one write) and the order document
       (one write), status ``paid`` with history placed, paid.
    6. ``Inventory.objects.release_sold`` pulls the reservations (one write;
       should it fail, ``cleanup_inventory`` drops them later, as sold).
    7. ``orders.signals.order_placed`` is sent (analytics, the confirmation
       e-mail); a failing receiver is logged, the order stands.

    7 round trips whatever the number of lines. Because the cart lock admits
    one checkout, a double submit yields exactly one order and one charge:
    the second gets ``CartInactive``. Raises ``CartInactive``
    (inventory.exceptions), ``EmptyCart``, ``CartChanged`` (orders.exceptions)
    and the provider's ``PaymentError``.
    """
    cart = lock_cart(cart_id)
    lines = [{"sku": line["sku"], "title": line["details"]["title"], "qty": line["qty"],
              "price": line["details"]["price"]} for line in cart["items"]]
    try:
        weights = Product.objects.shipping_weights([line["sku"] for line in lines])
        figures = pricing.totals(lines, weights)
        reference = provider.charge(figures.total, card, reference=cart_id)
    except Exception:
        Cart.objects.unlock_checkout(cart_id)
        raise
    if not Cart.objects.finish_checkout(cart_id, name, email, reference):
        provider.refund(reference)
        raise CartInactive("Your cart expired while the payment was being taken; the payment was refunded.")
    moment = clock.now()
    number = Order.objects.next_number()
    document = {
        "number": number, "status": Order.PAID, "placed_at": moment, "cart_id": cart_id,
        "user_id": str(user_id or ""), "name": name, "email": email,
        "lines": [{**line, "weight": weights.get(line["sku"], 0)} for line in lines],
        "address": dict(address) if address else None,
        "subtotal": figures.subtotal, "shipping": figures.shipping, "tax": figures.tax,
        "total": figures.total,
        "payment": {"reference": reference, "brand": card.brand, "last4": card.last4},
        "history": [{"status": Order.PLACED, "at": moment, "note": ""},
                    {"status": Order.PAID, "at": moment, "note": f"{card.brand} ending {card.last4}"}],
        "restocked": False,
    }
    order = Order.objects.insert_order(document)
    try:
        Inventory.objects.release_sold(cart_id)
    except Exception:
        logger.exception("Order %s: reservations of cart %s not pulled; cleanup_inventory will drop them.",
                         number, cart_id)
    sold = [{"sku": line["sku"], "qty": line["qty"], "price": line["price"]} for line in lines]
    for receiver, error in order_placed.send_robust(
        sender=Order, order=order, cart_id=cart_id, lines=sold, customer=email,
        session_key=session_key or "", completed_at=moment,
    ):
        if isinstance(error, Exception):
            logger.error("order_placed receiver %r failed for order %s: %r", receiver, number, error)
    return order
