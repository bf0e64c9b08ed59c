"""Receivers of other apps' signals, connected in ``AnalyticsConfig.ready``: the storefront and
the cart send signals and never import analytics.

* ``catalog.signals.product_viewed``: a view event (``record_product_view``);
* ``inventory.signals.line_added``: an add-to-cart event (``record_line_added``);
* ``orders.signals.order_placed``: one sale event per line (``record_completed_order``).
"""

from django.utils.crypto import salted_hmac

from .models import Event
from core.money import apportion

#: The salt of the guest shopper's id (an HMAC of the session key with SECRET_KEY).
GUEST_SALT = "analytics.guest-shopper"


def record_completed_order(sender, cart_id, lines, customer="", session_key="", completed_at=None,
                           **kwargs):
    """Record one sale event per line of a completed checkout (see ``EventManager.record_order``).

    The shopper is the customer's e-mail address, else ``guest:<HMAC of the session key>``.
    With the ``order`` (the signal's ``Order``), each line's ``amount`` is its part of the
    order's ``total`` (what the shopper paid: after discounts, with tax and shipping;
    ``core.money.apportion`` by the lines' prices), so the dashboard's revenue is the orders'
    totals and its net revenue the totals less the refunds. Connected in ``AnalyticsConfig.ready``.
    """
    order = kwargs.get("order")
    if order is not None and lines:

        shares = apportion(order.total, [int(line["qty"]) * int(line["price"]) for line in lines])
        lines = [{**line, "amount": share} for line, share in zip(lines, shares)]
    Event.objects.record_order(cart_id, lines, userid=shopper_id(customer, session_key), ts=completed_at)


def record_refund(sender, number, request, amount, at=None, **kwargs):
    """Record a refund event for the sales dashboard (an ``orders.signals.order_refunded`` receiver)."""
    Event.objects.record_refund(number, request, amount, ts=at)


def record_product_view(sender, sku, request, **kwargs):
    """Record that the shopper making ``request`` viewed the product of ``sku`` (one write)."""
    Event.objects.record_view(sku, userid=request_shopper_id(request))


def record_line_added(sender, sku, qty, request, **kwargs):
    """Record that the shopper making ``request`` put ``qty`` (>= 1) of ``sku`` in a cart (one write).

    Raises ValueError for ``qty < 1``.
    """
    Event.objects.record_add_to_cart(sku, qty, userid=request_shopper_id(request))


def shopper_id(customer="", session_key=""):
    """The ``userid`` of an event: the e-mail address, else ``"guest:<32 hex>"``, else ``""``.

    A guest is named by an HMAC (SHA-256, keyed by ``SECRET_KEY``, salt ``GUEST_SALT``) of
    the session key, never the key itself: the events admin shows ``userid`` to staff, and a
    session key opens the guest's session (its cart). The same session gives the same id,
    so a guest's events still group together.
    """
    if customer:
        return customer
    if not session_key:
        return ""
    return "guest:" + salted_hmac(GUEST_SALT, session_key, algorithm="sha256").hexdigest()[:32]


def request_shopper_id(request):
    """The ``userid`` of the shopper making ``request`` (a signed-in user's e-mail, else the session)."""
    user = getattr(request, "user", None)
    email = getattr(user, "email", "") if user is not None and user.is_authenticated else ""
    session = getattr(request, "session", None)
    return shopper_id(email, getattr(session, "session_key", None) or "")
