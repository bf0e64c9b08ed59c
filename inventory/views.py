"""Shopper pages: add to cart, the cart. Thin views (checkout and orders: the ``orders`` app).

The views act only on the session's cart (``inventory.session``), never on a
cart named by a form or a URL.
"""

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from . import limits, products
from .forms import LineForm, RemoveForm
from .exceptions import CartInactive, InventoryError
from .models import Cart, Inventory
from .session import CART_COUNT, CART_ID, account_id, forget_cart, remember_cart, session_cart
from .signals import line_added
from .wording import refusal

def _bad_form(request, form):
    """The shop's 400 page listing the form's errors (field label: reason)."""
    reasons = [
        f"{form.fields[name].label or name.upper()}: {' '.join(errors)}" if name in form.fields
        else " ".join(errors)
        for name, errors in form.errors.items()
    ]
    return render(request, "400.html", {"reasons": reasons, "back_url": reverse("inventory:cart"),
                                        "back_text": "Back to your cart"}, status=400)


@require_POST
def add_to_cart(request):
    """POST ``/cart/add/`` (``sku``, ``qty``): reserve the units in the session's cart.

    ``sku`` is a SKU a product sells: its own, or one of its variants' (the product page's
    choice). Starts a cart when the session has none, or a new one when its cart has
    expired (and says so). Redirects to the product page (the variant chosen) with a
    message; an unknown SKU is a 404, the SKU of a product with variants (no variant
    chosen) or a bad quantity a message (nothing changed), and so is an add past the
    client's caps (``inventory.limits``: units of one SKU, open carts).
    """
    form = LineForm(request.POST)
    sku = request.POST.get("sku", "")
    try:
        product = products.by_sku(sku)
    except products.UnknownSku:
        raise Http404("No such product.") from None
    if sku not in product.sellable_skus:
        messages.error(request, f"Choose one of “{product.title}”’s versions first.")
        return redirect(product)
    back = products.page_url(product, sku)
    details = product.line_details(sku)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, f"Quantity: {' '.join(errors)}")
        return redirect(back)
    qty = form.cleaned_data["qty"]
    # The per-client caps (inventory.limits): counted before the reservation, given back
    # when it does not happen.
    taken, cap = limits.take_units(request, sku, qty)
    if not taken:
        messages.error(request, limits.UNITS_REFUSAL.format(title=details["title"], cap=cap))
        return redirect(back)
    added = False
    try:
        count, cart_id = _add(request, sku, details, qty)
        added = count is not None
    except limits.TooManyCarts:
        messages.error(request, limits.CARTS_REFUSAL)
        return redirect(back)
    finally:
        if not added:
            limits.give_back_units(request, sku, qty)
    if count is None:
        return redirect(back)
    remember_cart(request, cart_id, count)
    line_added.send(sender=Cart, cart_id=cart_id, sku=sku, qty=qty, request=request)
    messages.success(request, format_html(
        'Added {} × “{}” to your cart. <a href="{}">View cart</a>',
        qty, details["title"], reverse("inventory:cart")))
    return redirect(back)


def _new_cart(request):
    """A new cart for the session's shopper, counted against its address's open carts
    (raises ``limits.TooManyCarts``, nothing made)."""
    limits.open_cart(request)
    return Cart.objects.create_cart(account_id(request)).id


def _add(request, sku, details, qty):
    """Reserve ``qty`` units of ``sku`` in the session's cart (a new one when it has none or
    its cart expired), its line copying ``details`` (``{title, price}``, from
    ``Product.line_details``): ``(units in the cart, cart id)``, or ``(None, cart id)`` when
    refused, with the message said. Raises ``limits.TooManyCarts``."""
    cart_id = request.session.get(CART_ID)
    if not cart_id:
        cart_id = _new_cart(request)
    else:
        # A cart past its maximum age is expired here; the add below then finds it expired.
        Cart.expiry.expire_past_max_age(cart_id)
    try:
        try:
            return Cart.objects.add_item(cart_id, sku, qty, details, settings.CART_MAX_LINE_QTY), cart_id
        except CartInactive as expired:
            if expired.status in (Cart.MERGING, Cart.MERGED):
                # Signed in in another tab meanwhile: this session's cart went to the account,
                # and this session has just ended. No new guest cart; the session is untouched.
                messages.warning(request, format_html(
                    "You signed in in another tab just then, and your cart went with you: "
                    "“{}” was not added. Please add it again.", details["title"]))
                return None, cart_id
            if CART_ID in request.session:
                messages.warning(request, str(expired))
            cart_id = _new_cart(request)
            return Cart.objects.add_item(cart_id, sku, qty, details, settings.CART_MAX_LINE_QTY), cart_id
    except InventoryError as error:
        request.session[CART_ID] = cart_id
        messages.error(request, refusal(error, details["title"]))
        return None, cart_id


def cart(request):
    """``/cart/``: the session's cart with quantity and removal forms.

    Three reads: the cart, the available stock of its SKUs, so that each
    quantity box offers no more than the line plus what is still available
    (and the per-line maximum), and each line's cover (``products.line_covers``: the
    variant's own image when it has one, else the product's cover; ``line.picture``, None
    for a SKU the catalog no longer sells).
    """
    current = session_cart(request)
    if current is not None and request.session.get(CART_COUNT) != current.item_count:
        request.session[CART_COUNT] = current.item_count
    if current is not None and current.items:
        available = Inventory.objects.available_many([line.sku for line in current.items])
        for line in current.items:
            line.max_qty = min(settings.CART_MAX_LINE_QTY, line.qty + available.get(line.sku, 0))
        covers = products.line_covers([line.sku for line in current.items])
        for line in current.items:
            line.picture = covers[line.sku].picture if line.sku in covers else None
    return render(request, "inventory/cart.html", {"cart": current})


def _change_line(request, form, change, confirm):
    """Apply ``change(cart_id, cleaned_data)`` to the session's cart and redirect to the cart
    with ``confirm(title, cleaned_data)`` as the message, or the refusal in the product's title.

    One read of the cart first, for the line's title (messages never show SKUs).
    A bad form is the shop's 400 page, nothing changed.
    """
    if not form.is_valid():
        return _bad_form(request, form)
    cart_id = request.session.get(CART_ID)
    if not cart_id:
        messages.error(request, "Your cart is empty.")
        return redirect("inventory:cart")
    current = Cart.objects.get_cart(cart_id)
    sku = form.cleaned_data["sku"]
    line = current.line(sku) if current is not None else None
    title = line.details.title if line is not None else sku
    # The per-client cap of units (inventory.limits): a raise is counted first, a cut given back.
    delta = form.cleaned_data.get("qty", 0) - (line.qty if line is not None else 0)
    if delta > 0:
        taken, cap = limits.take_units(request, sku, delta)
        if not taken:
            messages.error(request, limits.UNITS_REFUSAL.format(title=title, cap=cap))
            return redirect("inventory:cart")
    try:
        request.session[CART_COUNT] = change(cart_id, form.cleaned_data)
    except CartInactive as error:
        limits.give_back_units(request, sku, max(delta, 0))
        forget_cart(request)
        messages.warning(request, str(error))
    except InventoryError as error:
        limits.give_back_units(request, sku, max(delta, 0))
        messages.error(request, refusal(error, title))
    else:
        limits.give_back_units(request, sku, max(-delta, 0))
        messages.success(request, confirm(title, form.cleaned_data))
    return redirect("inventory:cart")


def _updated(title, data):
    if data["qty"] == 0:
        return f"Removed “{title}” from your cart."
    return f"Your cart now holds {data['qty']} × “{title}”."


@require_POST
def update_line(request):
    """POST ``/cart/update/`` (``sku``, ``qty`` 0..max): change a line of the session's cart."""
    return _change_line(
        request, LineForm(request.POST, allow_zero=True),
        lambda cart_id, data: Cart.objects.update_quantity(cart_id, data["sku"], data["qty"]),
        _updated,
    )


@require_POST
def remove_line(request):
    """POST ``/cart/remove/`` (``sku``): remove a line of the session's cart."""
    return _change_line(
        request, RemoveForm(request.POST),
        lambda cart_id, data: Cart.objects.remove_item(cart_id, data["sku"]),
        lambda title, data: f"Removed “{title}” from your cart.",
    )
