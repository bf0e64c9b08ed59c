"""Placing an order: the "Inventory Management" use case's checkout, priced on the server, written as an order document.

``place_order`` is the one way a cart becomes an order; the checkout page
and the tests call it. ``complete_attempt`` is its second half, shared with
``reconcile_payments`` (``reconcile.py``), which finishes what a crash
interrupted. The cart's status changes are ``Cart.objects``' (``lock_for_checkout``, ``unlock_checkout``, ``finish_checkout``), the
reservations' ``Inventory.objects``': this module decides when, charges
and refunds through the payment provider (``payments.py``) and writes the
order (``Order.objects``).
"""

import logging

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from catalog.models import Product
from inventory.exceptions import CartInactive
from inventory.models import Cart, Inventory
from core import clock

from . import pricing, repricing
from .exceptions import AttemptFenced, CartChanged, EmptyCart, PaymentInProgress, PricesChanged
from .ledger import VOID, new_key
from .models import Order, PaymentAttempt
from .payments import PaymentError
from .signals import order_placed

logger = logging.getLogger(__name__)


def lock_cart(cart_id, payment_key):
    """The "Inventory Management" use case ``checkout``'s first steps: lock the cart for the attempt ``payment_key`` and
    check it against its reservations.

    1. ``Cart.objects.lock_for_checkout``: active -> pending, holding ``payment_key``.
    2. Compare the lines with the cart's reservations
       (``Inventory.objects.reservations_of``, one read): a line whose units
       are not reserved (a change in flight or a crashed add) unlocks the
       cart and raises ``CartChanged``, so nothing unreserved is ever sold.

    Returns the raw cart document (status ``pending``). 2 round trips
    whatever the number of lines (3 with an unlock or a refusal). Raises
    ``PaymentInProgress`` (the cart is pending: another tab is paying, or
    recovery is settling it), ``CartInactive`` (expired, complete, gone),
    ``EmptyCart``, ``CartChanged``.
    """
    cart = Cart.objects.lock_for_checkout(cart_id, payment_key)
    if cart is None:
        current = Cart.objects.get_cart(cart_id)
        if current is not None and current.status == Cart.PENDING:
            raise PaymentInProgress(cart_id)
        raise CartInactive("This cart is no longer active. Nothing was charged.")
    wanted = {}
    for line in cart["items"]:
        wanted[line["sku"]] = wanted.get(line["sku"], 0) + line["qty"]
    if not wanted:
        Cart.objects.unlock_checkout(cart_id, payment_key)
        raise EmptyCart()
    try:
        reserved = Inventory.objects.reservations_of(cart_id)
    except Exception:
        Cart.objects.unlock_checkout(cart_id, payment_key)
        raise
    if reserved != wanted:
        Cart.objects.unlock_checkout(cart_id, payment_key)
        raise CartChanged()
    return cart


def _reread_prices(cart):
    """The locked ``cart`` (raw) at the catalog's prices of now: ``(cart, changes, weights)``.

    One read for all its SKUs (``Product.objects.prices_and_weights``, an
    indexed ``$in`` by SKU): ``cart`` with each line's ``details.price``
    replaced by the current retail price, the ``repricing.PriceChange`` of
    each line whose price moved since it was added, and ``{sku: grams}``.
    """
    facts = Product.objects.prices_and_weights([line["sku"] for line in cart["items"]])
    items, changes = repricing.reprice(cart["items"], {sku: price for sku, (price, _) in facts.items()})
    return {**cart, "items": items}, changes, {sku: weight for sku, (_, weight) in facts.items()}


def _refuse_unconfirmed(cart_id, key, cart, changes, total):
    """Charge nothing for prices the shopper has not seen: the cart held for attempt ``key``
    takes the current prices (``Cart.objects.reprice_held``, one write, only when some
    changed) and ``PricesChanged`` is raised (``place_order`` then unlocks the cart)."""
    if changes:
        Cart.objects.reprice_held(cart_id, key, cart["items"])
    raise PricesChanged(changes, total)


def _priced_order(cart, card, name, email, address, user_id, session_key, weights):
    """The order as checkout priced it, kept on the payment attempt: ``(order dict, total cents)``.

    ``cart`` as ``_reread_prices`` gives it (current prices), ``weights``
    ``{sku: grams}``; the totals come from those prices (``pricing.totals``),
    never a form's. No round trip.
    """
    lines = [{"sku": line["sku"], "title": line["details"]["title"], "qty": line["qty"],
              "price": line["details"]["price"]} for line in cart["items"]]
    figures = pricing.totals(lines, weights)
    order = {
        "user_id": str(user_id or ""), "name": name, "email": email,
        "lines": [{**line, "weight": weights.get(line["sku"], 0)} for line in lines],
        "address": dict(address) if address else None,
        "subtotal": figures.subtotal, "shipping": figures.shipping, "tax": figures.tax,
        "total": figures.total, "card": {"brand": card.brand, "last4": card.last4},
        "session_key": session_key or "",
    }
    return order, figures.total


def place_order(cart_id, provider, card, name, email, address=None, user_id="", session_key="",
                confirmed_total=None):
    """Check out cart ``cart_id`` and write its order; returns the ``Order`` (status ``paid``).

    ``card`` is a ``payments.Card``; ``address`` a dict of ``Address``'s
    fields (or None); ``user_id`` the shopper's account id ("" for a guest);
    ``confirmed_total`` the total in cents the shopper was shown and paid
    (None: the cart's own prices stand for what was shown).
    The "Inventory Management" use case ``checkout``, with a payment ledger so that no crash keeps money
    without an order (docs/operations.md, "Checkout and payment recovery"):

    1. ``lock_cart``: active -> pending for a new attempt key, and the lines
       compared with the reservations (2 round trips).
    2. The lines' prices re-read (one read, ``_reread_prices``). When one
       differs from its cart line's, or the total from ``confirmed_total``,
       nothing is charged: the cart takes the new prices and is unlocked,
       and ``PricesChanged`` says what changed (the shopper confirms by
       paying again). Otherwise the order is priced from exactly that read
       and the attempt recorded in the ledger with its total,
       status ``charging`` (``PaymentAttempt.objects.begin``, one write),
       *before* the provider is called.
    3. ``provider.charge(total, card, reference=cart_id, idempotency_key=key)``.
       A decline (``PaymentError``) marks the attempt declined and unlocks
       the cart (reservations intact), and is re-raised. Any other failure
       leaves the attempt ``charging``: ``reconcile_payments`` asks the
       provider and finishes or voids it.
    4. The attempt becomes ``charged`` (one conditional write). Should
       recovery have taken the attempt over meanwhile (a checkout stalled past
       ``PAYMENT_RECOVERY_AFTER``), the charge is refunded if recovery voided
       it, and ``PaymentInProgress`` is raised otherwise.
    5. ``complete_attempt``: the order (keyed by the attempt), the cart
       complete, the reservations released, the attempt completed (5 round
       trips), then ``order_placed``.

    A price changed after the read is not seen by this checkout: what it
    read is what the shopper confirmed, and the ledger's amount, the charge
    and the order's total are all that one total.

    10 round trips whatever the number of lines (12 when prices changed). Because the cart lock admits
    one checkout, a double submit yields exactly one order and one charge:
    the second gets ``PaymentInProgress`` (its page shows the first's
    order). Raises ``CartInactive`` (inventory.exceptions), ``EmptyCart``,
    ``CartChanged``, ``PricesChanged``, ``AttemptFenced``, ``PaymentInProgress``
    (orders.exceptions) and the provider's ``PaymentError``.
    """
    key = new_key()
    cart = lock_cart(cart_id, key)
    try:
        cart, changes, weights = _reread_prices(cart)
        order, total = _priced_order(cart, card, name, email, address, user_id, session_key, weights)
        if changes or (confirmed_total is not None and total != confirmed_total):
            _refuse_unconfirmed(cart_id, key, cart, changes, total)
        PaymentAttempt.objects.begin(key, cart_id, total, order)
    except AttemptFenced:
        raise
    except Exception:
        Cart.objects.unlock_checkout(cart_id, key)
        raise
    try:
        charge_id = provider.charge(total, card, reference=cart_id, idempotency_key=key)
    except PaymentError as error:
        PaymentAttempt.objects.mark_declined(key, str(error))
        Cart.objects.unlock_checkout(cart_id, key)
        raise
    if not PaymentAttempt.objects.mark_charged(key, charge_id):
        _taken_over(key, provider, charge_id, cart_id)
    return complete_attempt(key, cart_id, order, charge_id)


def _taken_over(key, provider, charge_id, cart_id):
    """Step 4's refusal: recovery took attempt ``key`` over while the provider was charging.

    Recovery voided it (it found no charge, before this one landed): the
    charge is refunded and ``AttemptFenced`` raised. Otherwise recovery found
    the charge and is placing the order: ``PaymentInProgress``.
    """
    attempt = PaymentAttempt.objects.get_raw(key)
    if attempt is not None and attempt["status"] == VOID:
        provider.refund(charge_id)
        logger.warning("Payment %s charged after recovery voided it: charge %s refunded.", key, charge_id)
        raise AttemptFenced()
    raise PaymentInProgress(cart_id)


def order_id(key):
    """The ``_id`` of the order placed by attempt ``key`` (a 24-hex-digit ObjectId string): one
    attempt can insert its order once, whoever (checkout or recovery) tries."""
    return ObjectId(key)


def complete_attempt(key, cart_id, order, charge_id, note=""):
    """Place the order of the charged attempt ``key`` and settle its cart; returns the ``Order``.

    Every step is idempotent, so checkout and ``reconcile_payments`` (which
    calls this for an attempt a crash interrupted, with a ``note``) can run
    it from any point, even both at once:

    1. The order number (one write) and the order, ``_id`` derived from
       ``key`` (one write; an order already there for the attempt or the
       cart is kept, the number is then unused).
    2. ``Cart.objects.finish_checkout`` for ``key``: pending -> complete.
    3. ``Inventory.objects.release_sold`` pulls the reservations (should it
       fail, ``cleanup_inventory`` drops them later, as sold).
    4. The attempt becomes ``completed`` with the order number.
    5. ``orders.signals.order_placed`` (analytics, the confirmation e-mail),
       only by whoever completed the attempt in step 4, so once; a failing
       receiver is logged.

    ``order`` is the attempt's priced order (``_priced_order``). 5 round trips.
    """
    moment = clock.now()
    number = Order.objects.next_number()
    card = order.get("card") or {}
    history = [{"status": Order.PLACED, "at": moment, "note": note},
               {"status": Order.PAID, "at": moment, "note": f"{card.get('brand', 'Card')} ending {card.get('last4', '')}"}]
    document = {
        "_id": order_id(key), "number": number, "status": Order.PAID, "placed_at": moment, "cart_id": cart_id,
        **{field: order[field] for field in ("user_id", "name", "email", "lines", "address",
                                             "subtotal", "shipping", "tax", "total")},
        "payment": {"reference": charge_id, "brand": card.get("brand", ""), "last4": card.get("last4", "")},
        "history": history, "restocked": False,
    }
    try:
        placed = Order.objects.insert_order(document)
    except DuplicateKeyError:
        placed = Order.objects.get_by_cart(cart_id)
        if placed is None:
            raise
    if not Cart.objects.finish_checkout(cart_id, order["name"], order["email"], charge_id, key):
        logger.error("Order %s: cart %s was not held for payment %s when completed.", placed.number, cart_id, key)
    try:
        Inventory.objects.release_sold(cart_id)
    except Exception:
        logger.exception("Order %s: reservations of cart %s not pulled; cleanup_inventory will drop them.",
                         placed.number, cart_id)
    completed = PaymentAttempt.objects.mark_completed(
        key, placed.number, charge_id=charge_id, recovered=bool(note), note=note)
    if completed:
        sold = [{"sku": line["sku"], "qty": line["qty"], "price": line["price"]} for line in order["lines"]]
        for receiver, error in order_placed.send_robust(
            sender=Order, order=placed, cart_id=cart_id, lines=sold, customer=order["email"],
            session_key=order.get("session_key", ""), completed_at=moment,
        ):
            if isinstance(error, Exception):
                logger.error("order_placed receiver %r failed for order %s: %r", receiver, placed.number, error)
    return placed
