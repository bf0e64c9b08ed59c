"""Gift cards as a payment after tax: what each card of the context pays of a priced order.

``apply(priced, context)`` runs after the pricing steps (``orders.pricing.price``):
the cards of ``context.gift_cards`` (one read) pay the total in the order typed,
each at most its balance; ``priced.gift_card`` is what they pay and
``priced.charged`` the rest, charged to the card through Stripe (none: no
PaymentIntent). Checkout debits each card before any PaymentIntent
(``orders.claims``). All amounts are integer cents.
"""

from core import clock

from .models import GiftCard, normalize


def apply(priced, context):
    """Set ``priced.gift_cards`` (``[{"card_id", "code", "amount"}]``), ``gift_card`` and
    ``charged``. An unknown, expired or empty card pays nothing. One read with cards, none
    without."""
    priced.charged = priced.total
    codes = [normalize(code) for code in context.gift_cards or ()]
    if not codes or priced.total <= 0:
        return
    at = context.at or clock.now()
    cards = GiftCard.objects.by_codes(codes)
    left = priced.total
    for code in dict.fromkeys(codes):
        card = cards.get(code)
        if card is None or clock.aware(card["expires_at"]) <= at or card["balance"] <= 0 or left <= 0:
            continue
        amount = min(card["balance"], left)
        priced.gift_cards.append({"card_id": card["_id"], "code": code, "amount": amount})
        left -= amount
    priced.gift_card = priced.total - left
    priced.charged = left
