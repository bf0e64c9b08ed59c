"""Shopper pages of the orders app: checkout (address, totals, payment) and an order's page. Thin views.

The cart comes from the session (``inventory.session``); totals are computed
on the server (``pricing``); the order is placed by ``checkout.place_order``.
An order's page is shown to the session that placed it and to its account,
and is a 404 for anyone else (a foreign or unknown number alike).
"""

import dataclasses
import logging

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from addresses.checkout import AddressBook, address_for_page, billing_for_page
from catalog.models import Product
from inventory.exceptions import CartInactive, InventoryError
from inventory.models import Cart
from inventory.session import CART_ID, LAST_CART, ORDERS, ORDERS_KEPT, forget_cart, session_cart
from core.money import display
from promotions import session as promotion_codes

from . import repricing
from .checkout import finish_payment, place_order
from .codes import session_context
from .exceptions import CheckoutRefused, CodeRefused, GiftCardRefused, PaymentActionRequired, PaymentInProgress, PricesChanged
from .forms import AddressForm, BillingAddressForm, CheckoutForm, PriceConfirmationForm, ShippingMethodForm, billing_same
from .models import Order
from .payments import PaymentError, get_provider
from .stripejs import stripe_page
from .reconcile import checkout_outcome
from .invoices import render_pdf
from .models import Invoice

logger = logging.getLogger(__name__)


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


def _pricing_context(request, address_form):
    """The ``PricingContext`` of the session's codes and gift cards and the signed-in account
    (``orders.codes.session_context``) with, when ``address_form`` is bound and valid, its
    address and VAT number (else priced with no destination)."""
    context = dataclasses.replace(session_context(request),  # the method picked (shipping.rates)
                                  shipping_method=ShippingMethodForm(request.POST or None).chosen())
    if not address_form.is_bound or not address_form.is_valid():
        return context
    return dataclasses.replace(context, address=address_form.address(), vat_number=address_form.buyer_vat_number())


def _destination(address_form, figures=None):
    """What the tax and shipping depend on in a valid ``address_form`` (country, region, VAT
    number, postcode) and the shipping method charged in ``figures`` as one string, the
    page's hidden ``priced_for``; "" for no address."""
    if not address_form.is_bound or not address_form.is_valid():
        return ""
    address = address_form.address()
    return "|".join((address["country"], address["region"], address_form.buyer_vat_number(),
                     address["postcode"],  # the postcode: shipping zones may go by its prefix
                     ((figures and figures.shipping_method) or {}).get("code", "")))


def _total_moved_for(request, address_form, figures):
    """True when the page was priced for another destination (``priced_for``) and posted a
    total (``confirmed_total``) other than ``figures.total``, the total for the posted
    address: nothing is charged until the shopper sees it. (A total moved for another
    reason, the same destination, goes to checkout, which refuses it with its own message.)"""
    confirmed = PriceConfirmationForm(request.POST).confirmed()
    priced_for = request.POST.get("priced_for")  # absent: a client that is not the page; checkout decides
    moved = priced_for is not None and priced_for != _destination(address_form, figures)
    return moved and confirmed is not None and confirmed != figures.total


def checkout(request):
    """``/checkout/``: the order summary with shipping and tax, the address and payment forms.

    The lines are shown at the catalog's prices of now (``repricing.quote``:
    a price changed since the add is shown old and new, and the cart takes
    the new one). POST places the order (``place_order``, with the total the
    page showed) and redirects to its page; when a price moved since the
    page was shown, nothing is charged and the page comes back with the old
    and new prices and the new total, for the shopper to pay again. A
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
        if current is None and request.session.get(CART_ID):  # kept: its payment is under way
            return redirect("orders:checkout_status")
        messages.info(request, "Your cart is empty.")
        return redirect("inventory:cart")
    initial = {"email": request.user.email} if request.user.is_authenticated else {}
    form = CheckoutForm(request.POST or None, initial=initial)
    book = AddressBook(request)  # a signed-in shopper's saved addresses: one read, when drawn
    saved_data, chosen = address_for_page(request, book) if request.method == "GET" else (None, None)
    address_form = AddressForm(request.POST or saved_data)
    # The billing address: "same as shipping" (checked by default), or its own fields, filled on
    # a GET from the address clicked for billing or the account's own billing default.
    if request.method == "POST":
        same, billing_saved = billing_same(request.POST), None
        billing_form = BillingAddressForm(None if same else request.POST)
    else:
        billing_data, billing_saved, same = billing_for_page(request, book, chosen)
        billing_form = BillingAddressForm(billing_data)
    # Priced for the address posted (tax by destination) when it is valid, else with no address.
    shown = repricing.quote(current, _pricing_context(request, address_form))
    changes, figures = shown.changes, shown.totals
    if request.method == "POST" and figures.shipping_refused and address_form.is_valid():
        address_form.add_error("country", figures.shipping_refused)  # no zone: refused before any payment
    if request.method == "GET":  # the codes kept are those the page shows applied
        promotion_codes.drop_unapplied(request, figures.discounts)
    provider = get_provider()
    if request.method == "POST" and changes:
        messages.warning(request, str(PricesChanged(changes, figures.total)))
    elif request.method == "POST" and address_form.is_valid() and _total_moved_for(request, address_form, figures):
        # Tax and shipping depend on the address: the page showed another total; show this one.
        messages.warning(request, f"With tax and shipping for this address the total is {display(figures.total)}: "
                                  "check it and pay again.")
    elif request.method == "POST" and form.is_valid() and address_form.is_valid() and (
            same or billing_form.is_valid()):
        try:
            order = place_order(
                current.id, provider, form.cleaned_data["stripe_token"], name=address_form.address()["name"],
                email=form.cleaned_data["email"], address=address_form.address(),
                billing_address=address_form.address() if same else billing_form.address(),
                user_id=_user_id(request), session_key=request.session.session_key or "",
                confirmed_total=PriceConfirmationForm(request.POST).confirmed(),
                vat_number=address_form.buyer_vat_number(),
                codes=promotion_codes.codes(request),
                gift_cards=promotion_codes.gift_cards(request),
                shipping_method=(figures.shipping_method or {}).get("code", ""),
                gift_recipients=promotion_codes.gift_recipients(request),
            )
        except PaymentActionRequired as action:
            return _authenticate(request, provider, action)
        except PaymentError as error:
            form.add_error(None, str(error))
        except PaymentInProgress:
            return redirect("orders:checkout_status")
        except PricesChanged as refused:
            # Changed after this request's own read: show the cart as checkout repriced it.
            again = repricing.quote(Cart.objects.get_cart(current.id) or current,
                                    _pricing_context(request, address_form))
            changes, figures = refused.changes or again.changes, again.totals
            current = again.cart
            messages.warning(request, str(refused))
        except CartInactive as error:
            placed = Order.objects.get_by_cart(current.id)
            if placed is not None:
                return _already_placed(request, placed)
            forget_cart(request)
            messages.warning(request, str(error))
            return redirect("inventory:cart")
        except (CheckoutRefused, InventoryError) as error:
            if isinstance(error, CodeRefused):
                promotion_codes.remove_code(request, error.code)
            if isinstance(error, GiftCardRefused):
                promotion_codes.remove_gift_card(request, error.code)
            messages.error(request, str(error))
            return redirect("inventory:cart")
        except Exception:
            # A crash mid-checkout (the database, the provider): the payment may
            # be taken. The status page tells the shopper what became of it,
            # once reconcile_payments has settled it.
            logger.exception("Checkout of cart %s interrupted; the status page will tell the shopper.", current.id)
            return redirect("orders:checkout_status")
        else:
            forget_cart(request)
            promotion_codes.forget_codes(request)
            _remember_order(request, order)
            return redirect(order)
    return stripe_page(request, provider, "orders/checkout.html", {
        "cart": current, "form": form, "address_form": address_form, "totals": figures,
        "price_changes": changes, "priced_for": _destination(address_form, figures),
        "address_book": book, "chosen_address": chosen, "summary_lines": _summary_lines(current),
        "billing_form": billing_form, "billing_same": same, "chosen_billing": billing_saved,
    })


def _summary_lines(cart):
    """The order summary's lines: ``[{line, product, picture, variant}]`` for each of ``cart``'s
    lines, ``product`` the Product it sells (None when the catalog no longer has it),
    ``picture`` what its cover draws (the variant's own image when it has one, else the
    product's cover) and ``variant`` its options as text ("" for none). One read when the
    page is drawn (``Product.objects.line_covers``)."""
    covers = Product.objects.line_covers([line.sku for line in cart.items])
    lines = []
    for line in cart.items:
        found = covers.get(line.sku)
        lines.append({"line": line, "product": found and found.product, "picture": found and found.picture,
                      "variant": found.variant if found else ""})
    return lines


def _authenticate(request, provider, action):
    """The 3-D Secure page: Stripe.js asks the shopper's bank, then the page posts to
    ``checkout_confirm``, where the server reads the intent (never the browser's word)."""
    return stripe_page(request, provider, "orders/checkout_authenticate.html",
                       {"client_secret": action.client_secret})


def checkout_confirm(request):
    """``/checkout/confirm/``: back from 3-D Secure in the page (POST), or the status page's link
    back to it (GET). The server reads the PaymentIntent (``finish_payment``): succeeded -> the
    order's page; declined or failed authentication -> the checkout again, the cart intact;
    still waiting -> the 3-D Secure page."""
    cart_id = request.session.get(CART_ID)
    if not cart_id:
        return redirect("orders:checkout_status")
    provider = get_provider()
    try:
        order = finish_payment(cart_id, provider)
    except PaymentActionRequired as action:
        return _authenticate(request, provider, action)
    except PaymentError as error:
        messages.error(request, f"{error} Nothing was charged; your cart is as you left it.")
        return redirect("orders:checkout")
    except PaymentInProgress:
        return redirect("orders:checkout_status")
    except Exception:
        logger.exception("Confirming the payment of cart %s failed; the status page will tell the shopper.", cart_id)
        return redirect("orders:checkout_status")
    forget_cart(request)
    promotion_codes.forget_codes(request)
    _remember_order(request, order)
    return redirect(order)


def checkout_status(request):
    """``/checkout/status/``: what became of the session's checkout, told truthfully.

    Placed: to the order's page. Still being taken or confirmed (another
    tab is paying, or a crash interrupted it and recovery has not run yet):
    a page that refreshes itself. Refunded or not charged: back to the cart,
    saying so. ``checkout_outcome`` settles a checkout pending for too long.
    """
    cart_id = request.session.get(CART_ID)
    if not cart_id and request.session.get(ORDERS):
        # The session's checkout is over (another tab of it placed the order): show that order.
        placed = Order.objects.get_by_number(request.session[ORDERS][-1])
        if placed is not None:
            messages.info(request, f"Order {placed.number} is placed; it was charged once.")
            return redirect(placed)
    outcome, detail = checkout_outcome(cart_id) if cart_id else ("none", None)
    if outcome == "placed":
        forget_cart(request)
        if detail.number not in request.session.get(ORDERS, []):
            _remember_order(request, detail)
        messages.success(request, f"Your payment went through: order {detail.number} is placed, charged once.")
        return redirect(detail)
    if outcome == "pending":
        waiting_for_bank = bool(detail and detail.get("intent_id") and detail["status"] == "charging")
        return render(request, "orders/checkout_status.html",
                      {"refresh_seconds": 3, "waiting_for_bank": waiting_for_bank})
    if outcome == "refunded":
        messages.warning(request, f"Your order could not be placed, so your payment of {display(detail['amount'])} "
                                  "was refunded in full.")
    elif outcome == "not_charged":
        messages.info(request, "Your payment was not taken: nothing was charged. Your cart is as you left it.")
    return redirect("inventory:cart")


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


def invoice_pdf(request, number, document):
    """``/order/<number>/documents/<document>.pdf``: the PDF of the order's invoice or credit
    note ``document`` (e.g. INV-2026-000001), for the session that placed the order, its
    account, or staff; a 404 for anyone else, an unknown document, or one of another order.
    Rendered at each download from the stored snapshot (``orders.invoices.render_pdf``)."""
    from django.http import HttpResponse

    placed = Order.objects.get_by_number(number)
    if placed is None:
        raise Http404("No such order.")
    staff = request.user.is_active and request.user.is_staff
    mine = placed.number in request.session.get(ORDERS, []) or (
        placed.user_id and placed.user_id == _user_id(request))
    if not (mine or staff):
        raise Http404("No such order.")
    issued = Invoice.objects.get_by_number(document)
    if issued is None or issued.order_number != placed.number:
        raise Http404("No such document.")
    response = HttpResponse(render_pdf(issued), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{issued.filename}"'
    response["Cache-Control"] = "private, no-store"
    return response
