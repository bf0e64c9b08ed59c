"""Gift cards as a payment after tax: what each card of the context pays of a priced order.

``apply(priced, context)`` runs after the pricing steps (``orders.pricing.price``):
the cards of ``context.gift_cards`` (one read) pay the total in the order typed,
each at most its balance; ``priced.gift_card`` is what they pay and
``priced.charged`` the rest, charged to the card through Stripe (none: no
PaymentIntent). Checkout debits each card before any PaymentIntent
(``orders.claims``). A gift card sold as a product (``is_gift_card``) is never paid by a gift
card: the cards pay at most the total less those lines. All amounts are integer cents.
"""

from django.conf import settings

from core import clock

from .models import GiftCard, normalize


def is_gift_card(product_type):
    """True when ``product_type`` (a type's name, e.g. a ``PricedLine.product_type``) is the gift
    cards' (``SHOP_GIFT_CARD_TYPE``): such a line needs no shipping, takes no discount and
    cannot be paid by a gift card."""
    return bool(product_type) and product_type == settings.SHOP_GIFT_CARD_TYPE


def apply(priced, context):
    """Set ``priced.gift_cards`` (``[{"card_id", "code", "amount"}]``), ``gift_card`` and
    ``charged``. An unknown, expired or empty card pays nothing. One read with cards, none
    without."""
    priced.charged = priced.total
    codes = [normalize(code) for code in context.gift_cards or ()]
    if not codes or priced.total <= 0:
        return
    at = context.at or clock.now()
    # A gift card cannot pay for a gift card: those lines (as paid, tax included) are left to Stripe.
    payable = priced.total - sum(line.paid for line in priced.lines if is_gift_card(line.product_type))
    if payable <= 0:
        return
    cards = GiftCard.objects.by_codes(codes)
    left = payable
    for code in dict.fromkeys(codes):
        card = cards.get(code)
        if card is None or clock.aware(card["expires_at"]) <= at or card["balance"] <= 0 or left <= 0:
            continue
        amount = min(card["balance"], left)
        priced.gift_cards.append({"card_id": card["_id"], "code": code, "amount": amount})
        left -= amount
    priced.gift_card = payable - left
    priced.charged = priced.total - priced.gift_card
