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
from promotions.giftcards import is_gift_card
from core import clock

from . import claims, pricing, repricing
from .exceptions import AttemptFenced, CartChanged, EmptyCart, PaymentActionRequired, PaymentInProgress, PricesChanged
from .exceptions import ShippingUnavailable
from .managers.ledger import CHARGING, VOID, new_key
from .models import Order, PaymentAttempt
from .payments import Intent, PaymentDeclined, PaymentError, shop_id
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
    """The locked ``cart`` (raw) at the catalog's prices of now: ``(cart, changes, facts)``.

    One read for all its SKUs (``Product.objects.checkout_facts``, an
    indexed ``$in`` by SKU): ``cart`` with each line's ``details.price``
    replaced by the current retail price, the ``repricing.PriceChange`` of
    each line whose price moved since it was added, and ``{sku: SkuFacts}``
    (weights, types, categories: what ``pricing.price`` matches rules on).
    """
    facts = Product.objects.checkout_facts([line["sku"] for line in cart["items"]])
    items, changes = repricing.reprice(cart["items"], {sku: fact.price for sku, fact in facts.items()})
    return {**cart, "items": items}, changes, facts


def _refuse_unconfirmed(cart_id, key, cart, changes, total):
    """Charge nothing for prices the shopper has not seen: the cart held for attempt ``key``
    takes the current prices (``Cart.objects.reprice_held``, one write, only when some
    changed) and ``PricesChanged`` is raised (``place_order`` then unlocks the cart)."""
    if changes:
        Cart.objects.reprice_held(cart_id, key, cart["items"])
    raise PricesChanged(changes, total)


def _priced_order(cart, name, email, address, user_id, session_key, facts, vat_number="", codes=(), gift_cards=(),
                  shipping_method="", billing_address=None, gift_recipients=None):
    """The order as checkout priced it, kept on the payment attempt: ``(order dict, total cents)``.

    ``cart`` as ``_reread_prices`` gives it (current prices), ``facts``
    ``{sku: SkuFacts}``; the figures come from those prices through the pricing
    pipeline (``pricing.price``: discounts, shipping, tax, each line's shares
    stored on it), never a form's; ``codes`` the discount codes typed (tuple of str).
    The order's ``claims`` are the codes to claim (``orders.claims``). No round trip
    (one read with codes). ``shipping_method`` the code of the method chosen ("" for the
    cheapest offered); a destination nothing ships to raises ``ShippingUnavailable``.
    ``billing_address`` the billing address as validated (a dict of ``Address``'s fields; None:
    not asked, the shipping address stands for it), stored as given: the order's snapshot.
    ``gift_recipients`` ``{sku: {"email", "message"}}``: who gets the gift cards of a line
    (kept for the lines that are gift cards, ``gift_recipients`` on the order).
    """
    lines = [{"sku": line["sku"], "title": line["details"]["title"], "qty": line["qty"],
              "price": line["details"]["price"]} for line in cart["items"]]
    context = pricing.PricingContext(cart_id=str(cart["_id"]), user_id=str(user_id or ""), email=email,
                                     address=dict(address) if address else None, vat_number=vat_number or "",
                                     codes=tuple(codes or ()), gift_cards=tuple(gift_cards or ()),
                                     shipping_method=shipping_method or "")
    figures = pricing.price(lines, facts, context)
    if figures.shipping_refused:  # before any claim, ledger entry or PaymentIntent
        raise ShippingUnavailable(figures.shipping_refused)
    order = {
        "user_id": str(user_id or ""), "name": name, "email": email,
        "lines": [line.as_order_line() for line in figures.lines],
        "address": dict(address) if address else None,
        "billing_address": dict(billing_address) if billing_address else None,
        "gift_recipients": [{"sku": line.sku, "email": str(gift_recipients[line.sku]["email"]),
                             "message": str(gift_recipients[line.sku].get("message") or "")}
                            for line in figures.lines
                            if gift_recipients and line.sku in gift_recipients and is_gift_card(line.product_type)],
        "subtotal": figures.subtotal, "discount": figures.discount, "discounts": figures.discounts,
        "shipping": figures.shipping, "shipping_tax": figures.shipping_tax, "tax": figures.tax,
        "total": figures.total, "card": {"brand": "", "last4": ""},  # set from the provider (set_intent)
        "tax_included": figures.tax_included, "tax_name": figures.tax_name,
        "shipping_tax_rate": figures.shipping_tax_rate, "reverse_charge": figures.reverse_charge,
        "vat_number": figures.vat_number,
        "session_key": session_key or "", "claims": figures.claims,
        "gift_cards": figures.gift_cards, "gift_card": figures.gift_card, "charged": figures.charged,
        "shipping_method": figures.shipping_method,  # the method as applied (shipping.rates)
    }
    return order, figures.total


def place_order(cart_id, provider, token, name, email, address=None, user_id="", session_key="",
                confirmed_total=None, vat_number="", codes=(), gift_cards=(), shipping_method="",
                billing_address=None, gift_recipients=None):
    """Check out cart ``cart_id`` paying with the Stripe.js ``token``; returns the ``Order``
    (status ``paid``), or raises ``PaymentActionRequired`` (3-D Secure to finish in the page).

    ``token`` is what Stripe.js made of the card in the shopper's browser (``tok_...``):
    the shop never sees the card. ``vat_number`` an EU business buyer's (checked by the
    form, ``taxes.vat.clean_vat_number``; "" for none). ``address`` a dict of ``Address``'s fields (or None);
    ``user_id`` the shopper's account id ("" for a guest); ``confirmed_total`` the total in
    cents the shopper was shown and paid (None: the cart's own prices stand for what was
    shown); ``codes`` the discount codes the shopper was shown applied (tuple of str: each
    must still apply, else ``CodeRefused``); ``shipping_method`` the code of the method the
    shopper chose ("" for the cheapest offered; a destination nothing ships to raises
    ``ShippingUnavailable`` before anything is claimed or charged); ``billing_address`` the
    billing address (a dict of ``Address``'s fields, validated as the shipping one; None: the
    shipping address is the billing address, the invoice's); ``gift_recipients`` ``{sku:
    {"email", "message"}}`` the recipients named for the cart's gift cards (validated by the
    cart page's form; ``orders.gift_cards_sold`` e-mails them). The "Inventory Management" use case ``checkout``, with a
    payment ledger so that no crash keeps money without an order (docs/payments.md):

    1. ``lock_cart``: active -> pending for a new attempt key, and the lines
       compared with the reservations (2 round trips).
    2. The lines' prices re-read (one read, ``_reread_prices``). When one
       differs from its cart line's, or the total from ``confirmed_total``,
       nothing is charged: the cart takes the new prices and is unlocked,
       and ``PricesChanged`` says what changed (the shopper confirms by
       paying again). Otherwise the order is priced from exactly that read
       and one use of each of its discount codes claimed for the attempt
       (``claims.claim``, one conditional write per code; a code used up
       meanwhile raises ``CodeRefused`` before anything is charged), then
       the attempt recorded in the ledger with its total,
       status ``charging`` (``PaymentAttempt.objects.begin``, one write),
       *before* the provider is called.
    3. ``provider.create_intent``: the PaymentIntent, not confirmed, its
       metadata naming the shop, the attempt and the cart.
    4. ``PaymentAttempt.objects.set_intent``: the intent's id in the ledger
       (one conditional write) *before* it is confirmed; refused when
       recovery voided the attempt meanwhile (``AttemptFenced``, nothing charged).
    5. ``provider.confirm`` with the key as ``Idempotency-Key``. A decline
       marks the attempt declined and unlocks the cart (reservations intact)
       and is re-raised. Any other failure leaves the attempt ``charging``:
       ``reconcile_payments`` asks Stripe and finishes or cancels it.
    6. ``settle_intent``: ``succeeded`` places the order; ``requires_action``
       raises ``PaymentActionRequired`` (the page runs 3-D Secure, then
       ``finish_payment`` reads the intent again on the server).

    A price changed after the read is not seen by this checkout: what it
    read is what the shopper confirmed, and the ledger's amount, the charge
    and the order's total are all that one total.

    Raises ``CartInactive`` (inventory.exceptions), ``EmptyCart``, ``CartChanged``,
    ``PricesChanged``, ``AttemptFenced``, ``PaymentInProgress``, ``PaymentActionRequired``
    (orders.exceptions) and the provider's ``PaymentError``.
    """
    key = new_key()
    cart = lock_cart(cart_id, key)
    claimed = False
    try:
        cart, changes, facts = _reread_prices(cart)
        order, total = _priced_order(cart, name, email, address, user_id, session_key, facts, vat_number,
                                     codes, gift_cards, shipping_method, billing_address, gift_recipients)
        if changes or (confirmed_total is not None and total != confirmed_total):
            _refuse_unconfirmed(cart_id, key, cart, changes, total)
        claims.refuse_missing(codes, order["claims"])
        claims.refuse_spent(gift_cards, order["gift_cards"], order["charged"])
        if order["claims"]:
            claims.claim(key, cart_id, order, order["claims"])  # before any charge
            claimed = True
        if order["gift_cards"]:
            claimed = True
            claims.debit_gift_cards(key, order["gift_cards"])  # before any charge
        PaymentAttempt.objects.begin(key, cart_id, order["charged"], order)
    except AttemptFenced:
        if claimed:
            claims.release(key)
        raise
    except Exception:
        if claimed:
            claims.release(key)
        Cart.objects.unlock_checkout(cart_id, key)
        raise
    if order["charged"] == 0:  # paid by gift cards alone (or nothing to pay): no PaymentIntent
        cards = order["gift_cards"]
        order["card"] = {"brand": "Gift card" if cards else "Nothing to pay", "last4": cards[-1]["code"][-4:] if cards else ""}
        return complete_attempt(key, cart_id, order, "")
    metadata = {"shop": shop_id(), "attempt": key, "cart": cart_id}
    try:
        intent, card = provider.create_intent(order["charged"], token, name, email, metadata, idempotency_key=key)
    except PaymentError as error:
        _declined(key, cart_id, error)
        raise
    if not PaymentAttempt.objects.set_intent(key, intent.id, card):
        claims.release(key)  # recovery voided the attempt (and released); again, in case it ran first
        raise AttemptFenced()
    order["card"] = card
    try:
        intent = provider.confirm(intent.id, idempotency_key=key)
    except PaymentError as error:
        _declined(key, cart_id, error)
        raise
    return settle_intent(key, cart_id, order, intent, provider)


def _declined(key, cart_id, error):
    """The provider refused attempt ``key``: declined, its code uses given back, and the cart
    back to the shopper."""
    PaymentAttempt.objects.mark_declined(key, str(error))
    claims.release(key)
    Cart.objects.unlock_checkout(cart_id, key)


def settle_intent(key, cart_id, order, intent, provider):
    """What the checkout does with the intent of attempt ``key`` as the server just read it.

    ``succeeded``: the attempt becomes ``charged`` (one conditional write) and the order is
    placed (``complete_attempt``); should recovery have taken the attempt over meanwhile,
    ``PaymentInProgress`` (it places the order). ``requires_action`` or ``processing``:
    ``PaymentActionRequired`` with the client secret for the page. Anything else (the bank
    refused, 3-D Secure failed): the intent is cancelled, so it can never succeed later, the
    attempt declined, the cart unlocked, and ``PaymentDeclined`` raised.
    """
    if intent.status == Intent.SUCCEEDED:
        if not PaymentAttempt.objects.mark_charged(key, intent.id):
            _taken_over(key, provider, intent.id, cart_id)
        return complete_attempt(key, cart_id, order, intent.id)
    if intent.status in (Intent.REQUIRES_ACTION, Intent.PROCESSING):
        raise PaymentActionRequired(key, intent.client_secret)
    cancelled = provider.cancel(intent.id)
    if cancelled.status == Intent.SUCCEEDED:  # it succeeded after all, just now
        return settle_intent(key, cart_id, order, cancelled, provider)
    error = PaymentDeclined(intent.error or "Your card was declined.")
    _declined(key, cart_id, error)
    raise error


def finish_payment(cart_id, provider):
    """The shopper's page came back from 3-D Secure: read the intent of the cart's attempt on
    the server and settle it (``settle_intent``). Returns the ``Order``.

    Never on the browser's word: only an intent Stripe reports ``succeeded`` places the
    order. Raises ``PaymentActionRequired`` (not finished yet), ``PaymentDeclined``
    (authentication failed: the cart is the shopper's again), ``PaymentInProgress`` (no
    attempt waiting: another tab or recovery settled it; the status page tells).
    """
    attempt = PaymentAttempt.objects.latest_for_cart(cart_id)
    if attempt is None or attempt["status"] != CHARGING or not attempt.get("intent_id"):
        raise PaymentInProgress(cart_id)
    intent = provider.retrieve(attempt["intent_id"])
    return settle_intent(attempt["_id"], cart_id, attempt["order"], intent, provider)


def _taken_over(key, provider, charge_id, cart_id):
    """Step 4's refusal: recovery took attempt ``key`` over while the provider was charging.

    Recovery voided it (it found no charge, before this one landed): the
    charge is refunded and ``AttemptFenced`` raised. Otherwise recovery found
    the charge and is placing the order: ``PaymentInProgress``.
    """
    attempt = PaymentAttempt.objects.get_raw(key)
    if attempt is not None and attempt["status"] == VOID:
        provider.refund(charge_id, idempotency_key=f"{key}-refund")
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
        # Priced before the line shares existed (an attempt kept across an upgrade): none.
        **{field: order.get(field, empty) for field, empty in (("discount", 0), ("discounts", []),
                                                                ("shipping_tax", 0), ("gift_card", 0))},
        "gift_cards": [{"code": entry["code"], "amount": entry["amount"]} for entry in order.get("gift_cards", [])],
        # The tax as applied (taxes.rates); absent from attempts priced before it existed.
        **{field: order.get(field, empty) for field, empty in (
            ("tax_included", False), ("tax_name", "Tax"), ("shipping_tax_rate", "0"),
            ("reverse_charge", False), ("vat_number", ""))},
        "shipping_method": order.get("shipping_method"),  # the method as applied (None before zones)
        "billing_address": order.get("billing_address"),  # as validated at checkout (None: not asked)
        "gift_recipients": list(order.get("gift_recipients") or []),  # who gets the gift cards bought
        "payment": {"reference": charge_id, "brand": card.get("brand", ""), "last4": card.get("last4", "")},
        "history": history, "restocked": False, "refunds": [], "refunded": 0,
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
    if order.get("gift_cards"):
        claims.settle(key)  # its gift-card debits are final
    completed = PaymentAttempt.objects.mark_completed(
        key, placed.number, charge_id=charge_id, recovered=bool(note), note=note)
    if completed:
        sold = [{"sku": line["sku"], "qty": line["qty"], "price": line["price"], "discount": line.get("discount", 0)}
                for line in order["lines"]]
        for receiver, error in order_placed.send_robust(
            sender=Order, order=placed, cart_id=cart_id, lines=sold, customer=order["email"],
            session_key=order.get("session_key", ""), completed_at=moment,
        ):
            if isinstance(error, Exception):
                logger.error("order_placed receiver %r failed for order %s: %r", receiver, placed.number, error)
    return placed
