"""The session's cart: which cart a shopper's session holds, for the views of every app.

A shopper's cart id lives in the Django session (server-side, ``core.sessions``),
never in a form or a URL that could name another cart. After each cart change
the session also keeps the number of units in the cart (``cart_count``), which
the header shows without a database round trip. The numbers of the orders the
session placed (which it may see) are listed under ``orders``. The cart pages
(``inventory.views``), checkout (``orders.views``) and the merge at sign-in
(``accounts.signals``) read and change the session's cart through this module.
"""

from django.contrib import messages
from django.urls import reverse
from django.utils.html import format_html

from .models import Cart

CART_ID = "cart_id"
LAST_CART = "last_cart_id"
CART_COUNT = "cart_count"
ORDERS = "orders"
ORDERS_KEPT = 10


def remember_cart(request, cart_id, count):
    """Store ``cart_id`` (str) as the session's cart and ``count`` (its units) for the header link."""
    request.session[CART_ID] = cart_id
    request.session[CART_COUNT] = count


def forget_cart(request):
    """Drop the session's cart (checked out, expired or gone); the header shows an empty cart.

    Its id stays in the session as ``last_cart_id``: sessions live on the server, so a
    second click of "Pay" answered after the first sees the first one's session, with no
    cart, and checkout finds the order placed from the last one (``orders.views``).
    """
    cart_id = request.session.pop(CART_ID, None)
    if cart_id:
        request.session[LAST_CART] = cart_id
    request.session[CART_COUNT] = 0


def account_id(request):
    """The signed-in shopper's account id for a new cart ("" for a guest)."""
    user = getattr(request, "user", None)
    return str(user.pk) if user is not None and user.is_authenticated else ""


def session_cart(request):
    """The session's active cart, or None (an inactive one is forgotten, with a message).

    An active cart past its maximum age (``settings.CART_MAX_AGE``) is
    expired first (``Cart.expiry.expire_past_max_age``) and treated as expired.

    A pending cart (its payment under way, or interrupted by a crash) is
    kept in the session, with a message linking to the checkout's status
    page, which says what became of the payment.
    """
    cart = Cart.objects.get_cart(request.session.get(CART_ID))
    if cart is None:
        if CART_ID in request.session:
            forget_cart(request)
        return None
    if cart.status == Cart.PENDING:
        messages.info(request, format_html(
            'Your payment is being confirmed. <a href="{}">See what became of it</a>.',
            reverse("orders:checkout_status")))
        return None
    if cart.status == Cart.ACTIVE and Cart.expiry.expire_past_max_age(cart.id, cart=cart):
        cart.status = Cart.EXPIRED
    if cart.status != Cart.ACTIVE:
        if cart.status in (Cart.EXPIRING, Cart.EXPIRED):
            messages.warning(request, "Your cart expired and its items went back on the shelf.")
        forget_cart(request)
        return None
    return cart
