"""Shopper pages of the orders app: checkout (address, totals, payment) and an order's page. Thin views.

The cart comes from the session (``inventory.views``); totals are computed
on the server (``pricing``); the order is placed by ``checkout.place_order``.
An order's page is shown to the session that placed it and to its account,
and is a 404 for anyone else (a foreign or unknown number alike).
"""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from catalog.models import Product
from inventory.exceptions import CartInactive, InventoryError
from inventory.views import CART_ID, LAST_CART, ORDERS, ORDERS_KEPT, forget_cart, session_cart

from . import pricing
from .checkout import place_order
from .forms import AddressForm, CheckoutForm
from .models import Order
from .payments import PaymentError, get_provider


def _user_id(request):
    return str(request.user.pk) if request.user.is_authenticated else ""


def _remember_order(request, order):
    request.session[ORDERS] = [*request.session.get(ORDERS, []), order.number][-ORDERS_KEPT:]


def _already_placed(request, placed):
    """A second submit of the session's cart, already ordered: to that order, charged once."""
    forget_cart(request)
    if placed.number not in request.session.get(ORDERS, []):
        _remember_order(request, placed)
    messages.info(request, f"Order {placed.number} was already placed; it was charged once.")
    return redirect(placed)


def checkout(request):
    """``/checkout/``: the order summary with shipping and tax, the address and payment forms.

    POST places the order (``place_order``) and redirects to its page. A
    declined card shows the reason with the cart intact; a cart that
    expired or changed sends the shopper back to the cart with a message; a
    second submit of a cart already ordered goes to that order's page.
    """
    # No cart in the session: a second submit after the first one's answer (server-side
    # sessions) still finds the order through the cart just checked out.
    cart_id = request.session.get(CART_ID) or request.session.get(LAST_CART)
    current = session_cart(request)
    if current is None or not current.items:
        placed = Order.objects.get_by_cart(cart_id) if request.method == "POST" else None
        if placed is not None:
            return _already_placed(request, placed)
        messages.info(request, "Your cart is empty.")
        return redirect("inventory:cart")
    lines = [{"sku": line.sku, "qty": line.qty, "price": line.details.price} for line in current.items]
    figures = pricing.totals(lines, Product.objects.shipping_weights([line["sku"] for line in lines]))
    initial = {"email": request.user.email} if request.user.is_authenticated else {}
    form = CheckoutForm(request.POST or None, initial=initial)
    address_form = AddressForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and address_form.is_valid():
        try:
            order = place_order(
                current.id, get_provider(), form.card(), name=form.cleaned_data["name"],
                email=form.cleaned_data["email"], address=address_form.address(),
                user_id=_user_id(request), session_key=request.session.session_key or "",
            )
        except PaymentError as error:
            form.add_error("card_number", str(error))
        except CartInactive as error:
            placed = Order.objects.get_by_cart(current.id)
            if placed is not None:
                return _already_placed(request, placed)
            forget_cart(request)
            messages.warning(request, str(error))
            return redirect("inventory:cart")
        except InventoryError as error:
            messages.error(request, str(error))
            return redirect("inventory:cart")
        else:
            forget_cart(request)
            _remember_order(request, order)
            return redirect(order)
    return render(request, "orders/checkout.html", {
        "cart": current, "form": form, "address_form": address_form, "totals": figures,
    })


def order(request, number):
    """``/order/<number>/``: an order this session placed or this account owns (404 otherwise)."""
    placed = Order.objects.get_by_number(number)
    if placed is None:
        raise Http404("No such order.")
    mine = placed.number in request.session.get(ORDERS, []) or (
        placed.user_id and placed.user_id == _user_id(request))
    if not mine:
        raise Http404("No such order.")
    return render(request, "orders/order.html", {"order": placed})
