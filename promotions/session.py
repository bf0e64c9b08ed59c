"""The discount codes and gift cards a shopper typed, kept in the session (``discount_codes``:
a list of normalized codes, at most ``MAX_CODES``; ``gift_cards``; ``gift_recipients``). The
pricing context they make is ``orders.codes.session_context`` (orders' ``PricingContext``)."""

from django.contrib import messages

CODES = "discount_codes"
MAX_CODES = 5


def codes(request):
    """The session's codes (tuple of str, in the order typed)."""
    return tuple(request.session.get(CODES, ()))


def add_code(request, code):
    """Keep ``code`` (normalized) in the session, after the others (once)."""
    kept = [c for c in request.session.get(CODES, []) if c != code]
    request.session[CODES] = [*kept, code][-MAX_CODES:]


def remove_code(request, code):
    """Drop ``code`` from the session; True when it was there."""
    kept = list(request.session.get(CODES, []))
    if code not in kept:
        return False
    kept.remove(code)
    request.session[CODES] = kept
    return True


def drop_unapplied(request, applied):
    """Drop the session's codes that are not among ``applied`` (``Priced.discounts``), each
    with a message saying it no longer applies: checkout then expects exactly the codes the
    page showed (``place_order`` refuses a code that stopped applying, before any charge)."""
    shown = {entry.get("code") for entry in applied}
    for code in codes(request):
        if code not in shown:
            remove_code(request, code)
            messages.warning(request, f"The discount code {code} no longer applies to your cart and was removed.")


def forget_codes(request):
    """Drop every code (an order was placed with them)."""
    request.session.pop(CODES, None)
    request.session.pop(GIFT_CARDS, None)
    request.session.pop(GIFT_RECIPIENTS, None)


GIFT_CARDS = "gift_cards"


def gift_cards(request):
    """The session's gift card codes (tuple of str)."""
    return tuple(request.session.get(GIFT_CARDS, ()))


def add_gift_card(request, code):
    """Keep gift card ``code`` (normalized) in the session (once, at most ``MAX_CODES``)."""
    kept = [c for c in request.session.get(GIFT_CARDS, []) if c != code]
    request.session[GIFT_CARDS] = [*kept, code][-MAX_CODES:]


def remove_gift_card(request, code):
    """Drop gift card ``code`` from the session."""
    request.session[GIFT_CARDS] = [c for c in request.session.get(GIFT_CARDS, []) if c != code]


#: The recipients of the gift cards in the cart: ``{sku: {"email", "message"}}`` (the cart
#: page's form, ``views.set_gift_recipient``); checkout copies them onto the order.
GIFT_RECIPIENTS = "gift_recipients"


def gift_recipients(request):
    """The session's gift card recipients: ``{sku: {"email": str, "message": str}}`` (a copy)."""
    return {sku: dict(entry) for sku, entry in (request.session.get(GIFT_RECIPIENTS) or {}).items()}


def set_gift_recipient(request, sku, email, message=""):
    """Send the gift cards of line ``sku`` to ``email`` (validated) with ``message``; an empty
    ``email`` sends them to the buyer again (the entry dropped)."""
    kept = gift_recipients(request)
    if email:
        kept[str(sku)] = {"email": email, "message": message or ""}
    else:
        kept.pop(str(sku), None)
    request.session[GIFT_RECIPIENTS] = kept
