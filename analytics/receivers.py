"""Receivers of other apps' signals: sales from placed orders (``orders.signals.order_placed``)."""

from .models import Event


def record_completed_order(sender, cart_id, lines, customer="", session_key="", completed_at=None,
                           **kwargs):
    """Record one sale event per line of a completed checkout (see ``EventManager.record_order``).

    The shopper is the customer's e-mail address, else ``session:<key>``.
    Connected in ``AnalyticsConfig.ready``.
    """
    Event.objects.record_order(cart_id, lines, userid=shopper_id(customer, session_key), ts=completed_at)


def shopper_id(customer="", session_key=""):
    """The ``userid`` of an event: the e-mail address, else ``"session:<key>"``, else ``""``."""
    if customer:
        return customer
    return f"session:{session_key}" if session_key else ""


def request_shopper_id(request):
    """The ``userid`` of the shopper making ``request`` (a signed-in user's e-mail, else the session)."""
    user = getattr(request, "user", None)
    email = getattr(user, "email", "") if user is not None and user.is_authenticated else ""
    session = getattr(request, "session", None)
    return shopper_id(email, getattr(session, "session_key", None) or "")
