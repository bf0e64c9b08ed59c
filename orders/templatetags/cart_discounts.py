"""``{% cart_discounts cart %}``: the cart page's discount codes and gift cards, their amounts
and the forms (``orders/_cart_discounts.html``, posting to ``orders.codes``)."""

from django import template

from promotions import labels, session
from promotions.giftcards import is_gift_card

from ..codes import cart_priced, session_context

register = template.Library()


@register.inclusion_tag("orders/_cart_discounts.html", takes_context=True)
def cart_discounts(context, cart):
    """The applied codes of the session (``promotions.session``) priced on ``cart``: the
    discounts as applied (automatic offers and codes), the codes that no longer apply, the total
    after them, and the live offers covering a line that none of them took off yet, and the gift cards in the cart
    with their recipients (``gift_lines``: ``[(PricedLine, {"email", "message"} or None)]``). Two reads (``cart_priced``: the SKUs' facts, the live offers), three with codes."""
    request = context["request"]
    typed = session.codes(request)
    priced = cart_priced(cart, session_context(request)) if cart is not None and cart.items else None
    applied = {entry["code"] for entry in priced.discounts} if priced else set()
    # The live offers covering a line that took nothing off yet (e.g. a multibuy short of a set).
    offered = labels.labels_for_lines(priced.lines, labels.live(),
                                      {entry["name"] for entry in priced.discounts if not entry["code"]}) if priced else []
    # The gift cards in the cart, each with its recipient (the form to name one).
    recipients = session.gift_recipients(request)
    gift_lines = [(line, recipients.get(line.sku)) for line in (priced.lines if priced else ())
                  if is_gift_card(line.product_type)]
    return {"offered": offered, "gift_lines": gift_lines, "request": request, "csrf_token": context.get("csrf_token"), "priced": priced,
            "codes": typed, "after": priced.subtotal - priced.discount if priced else None, "idle": [code for code in typed if code not in applied]}
