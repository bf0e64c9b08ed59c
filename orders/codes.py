"""The cart page's discount codes and gift cards, over orders' pricing: the session's
``PricingContext`` (``session_context``), the cart priced with it (``cart_priced``, reads
only) and the views of the page's forms (apply or remove a code or a gift card, name a gift
card's recipient). Each view answers with a message on the cart page saying what became of
what was typed.

The codes and gift cards typed are kept in the session by ``promotions.session``; the box
that shows them on the cart page is ``{% cart_discounts cart %}``
(``orders/templatetags/cart_discounts.py``). Checkout prices with the same context
(``orders.views``) and re-reads the prices (``orders.repricing``).
"""

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from catalog.models import Product
from core import clock
from core.money import display
from inventory.session import session_cart
from promotions import session
from promotions.giftcards import is_gift_card
from promotions.models import GiftCard, Voucher, normalize
from promotions.rules import NOT_COMBINABLE, USED_UP, Refusal, check, usable

from . import pricing
from .forms import CodeForm, GiftRecipientForm


def session_context(request, email=""):
    """The ``pricing.PricingContext`` of the session's codes and gift cards
    (``promotions.session``) and the signed-in account (its id and e-mail; ``email`` when
    given, e.g. the checkout form's). No read."""
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    return pricing.PricingContext(codes=session.codes(request), gift_cards=session.gift_cards(request),
                                  user_id=str(user.pk) if signed_in else "",
                                  email=email or (user.email if signed_in else ""))


def cart_priced(cart, context):
    """``pricing.Priced`` of ``cart`` (a ``Cart``) at its lines' prices with ``context`` (a
    ``PricingContext``): one read of the SKUs' facts (``Product.objects.checkout_facts``), one
    more of the codes when there are any. Checkout re-reads the prices; this never writes."""
    lines = [{"sku": line.sku, "title": line.details.title, "qty": line.qty, "price": line.details.price}
             for line in cart.items]
    facts = Product.objects.checkout_facts([line["sku"] for line in lines])
    return pricing.price(lines, facts, context)


@require_POST
def apply_code(request):
    """``POST /cart/code/``: check the typed ``code`` against the session's cart and keep it
    in the session when it applies; otherwise say why (wrong, expired, used up, not
    applicable, not combinable). Reads: the code, the cart, the cart's SKUs' facts (and one
    more for a once-per-customer code)."""
    form = CodeForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Type a discount code.")
        return redirect("inventory:cart")
    code = normalize(form.cleaned_data["code"])
    cart = session_cart(request)
    if cart is None or not cart.items:
        messages.error(request, "Add something to your cart before a discount code.")
        return redirect("inventory:cart")
    try:
        voucher = Voucher.objects.by_codes([code]).get(code)
        if voucher is None:
            raise Refusal(code, "wrong")
        check(voucher, cart_priced(cart, session_context(request)), None)
        if voucher.get("once_per_customer") and request.user.is_authenticated and Voucher.objects.used_by(
                voucher["_id"], str(request.user.pk), (request.user.email or "").lower()):
            raise Refusal(code, USED_UP)
        others = [c for c in session.codes(request) if c != code]
        vouchers = Voucher.objects.by_codes(others)
        vouchers[code] = voucher
        if others and usable([*others, code], vouchers)[-1:] != [code]:
            raise Refusal(code, NOT_COMBINABLE)
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return redirect("inventory:cart")
    session.add_code(request, code)
    messages.success(request, f"Discount code {code} applied: {voucher['name']}.")
    return redirect("inventory:cart")


@require_POST
def remove_code(request):
    """``POST /cart/code/remove/``: drop ``code`` from the session's codes."""
    form = CodeForm(request.POST)
    if form.is_valid() and session.remove_code(request, normalize(form.cleaned_data["code"])):
        messages.info(request, f"Discount code {normalize(form.cleaned_data['code'])} removed.")
    return redirect("inventory:cart")


@require_POST
def apply_gift_card(request):
    """``POST /cart/gift-card/``: keep a gift card with a balance, not expired, in the session
    (it pays at checkout, after tax); otherwise say why. Rate limited (``discount_code``)."""
    form = CodeForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Type a gift card code.")
        return redirect("inventory:cart")
    code = normalize(form.cleaned_data["code"])
    card = GiftCard.objects.by_codes([code]).get(code)
    if card is None:
        messages.error(request, f"There is no gift card {code}. Check the spelling.")
    elif clock.aware(card["expires_at"]) <= clock.now():
        messages.error(request, f"The gift card {code} has expired.")
    elif card["balance"] <= 0:
        messages.error(request, f"The gift card {code} has no balance left.")
    else:
        session.add_gift_card(request, code)
        messages.success(request, f"Gift card {code} added: {display(card['balance'])} to spend at checkout.")
    return redirect("inventory:cart")


@require_POST
def remove_gift_card(request):
    """``POST /cart/gift-card/remove/``: drop a gift card from the session."""
    form = CodeForm(request.POST)
    if form.is_valid():
        session.remove_gift_card(request, normalize(form.cleaned_data["code"]))
    return redirect("inventory:cart")


@require_POST
def set_gift_recipient(request):
    """``POST /cart/gift-recipient/`` (``sku``, ``email``, ``message``): e-mail the gift cards of
    the cart's line ``sku`` to ``email`` after payment, with ``message`` (the buyer gets a
    notice); a blank ``email`` sends them to the buyer. Kept in the session until the order
    (``promotions.session.set_gift_recipient``). A line that is no gift card, or a bad e-mail,
    is a message on the cart page, nothing kept. Reads: the cart and its SKUs' facts."""
    form = GiftRecipientForm(request.POST)
    cart = session_cart(request)
    if not form.is_valid():
        for field, errors in form.errors.items():
            label = form.fields[field].label or field if field in form.fields else ""
            messages.error(request, f"{label}: {' '.join(errors)}" if label else " ".join(errors))
        return redirect("inventory:cart")
    sku = form.cleaned_data["sku"]
    line = None
    if cart is not None and cart.items:
        line = next((entry for entry in cart_priced(cart, session_context(request)).lines
                     if entry.sku == sku and is_gift_card(entry.product_type)), None)
    if line is None:
        messages.error(request, "That line of your cart is not a gift card.")
        return redirect("inventory:cart")
    email = form.cleaned_data["email"]
    session.set_gift_recipient(request, sku, email, form.cleaned_data["message"])
    if email:
        messages.success(request, f"The gift card will be e-mailed to {email} once paid; you get a notice.")
    else:
        messages.info(request, "The gift card will be e-mailed to you once paid.")
    return redirect("inventory:cart")
