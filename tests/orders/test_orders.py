"""Orders: numbers, the order document, pricing, statuses with refund and stock return, e-mails."""

import threading

import pytest
from django.conf import settings
from django.core import mail
from django.test import override_settings

from inventory.models import Cart
from orders import fulfilment, numbers, pricing
from orders.checkout import place_order
from orders.exceptions import InvalidTransition, OrderError
from orders.models import Order
from orders.payments import PaymentError, StripeProvider

from tests.support.payments import card_token, charges, refunded
from tests.support.inventory import DETAILS, add, assert_invariant, inventory, stock

ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB"}


def place(cart_id, **kwargs):
    return place_order(cart_id, StripeProvider(), card_token(), "Ada Lovelace", "ada@example.com",
                       address=ADDRESS, **kwargs)


def cart_with(*lines):
    cart = Cart.objects.create_cart()
    for sku, qty in lines:
        add(cart.id, sku, qty)
    return cart


# -- numbers ---------------------------------------------------------------

def test_first_numbers_are_distinct_when_16_threads_create_the_counter_at_once():
    """The counter document does not exist yet and 16 callers race to create it (SecantusDB
    answered None to the losers of a racing upsert; ``next_number`` never upserts and increments
    in one command)."""
    from django.db import connection

    from orders.managers.orders import COUNTERS

    for _ in range(5):
        connection.get_collection(COUNTERS).delete_many({})
        barrier = threading.Barrier(16)
        allocated, errors = [], []

        def run():
            barrier.wait()
            try:
                allocated.append(Order.objects.next_number())
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=run) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        assert sorted(allocated) == [numbers.format_number(n) for n in range(1, 17)]


def test_numbers_are_short_crockford_base32_without_look_alikes():
    assert numbers.format_number(1) == "CR-00001"
    assert numbers.format_number(32) == "CR-00010"
    assert numbers.format_number(32 ** 5) == "CR-100000"
    assert not set("ILOU") & set(numbers.ALPHABET)
    assert numbers.normalize(" cr-0000o ") == "CR-00000"
    assert numbers.normalize("CR-1l") == "CR-11"
    assert numbers.normalize("CR-00U01") == "" and numbers.normalize("X-1") == ""
    assert numbers.normalize("CR-" + "1" * 40) == ""


def test_order_numbers_are_unique_and_gapless_under_16_concurrent_checkouts():
    stock("A", 100)
    carts = [cart_with(("A", 1)) for _ in range(16)]
    barrier = threading.Barrier(16)
    placed, errors = [], []

    def run(cart):
        barrier.wait()
        try:
            placed.append(place(cart.id).number)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(cart,)) for cart in carts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert sorted(placed) == [numbers.format_number(n) for n in range(1, 17)]
    assert Order.objects.count() == 16
    assert inventory("A")["qty"] == 84
    assert_invariant()


# -- pricing -----------------------------------------------------------------

@override_settings(SHIPPING_BANDS=[(250, 399), (1000, 699), (None, 1999)], SHOP_TAX_PERCENT=20)
def test_shipping_bands_and_tax():
    assert pricing.shipping_cost(0) == 399
    assert pricing.shipping_cost(250) == 399
    assert pricing.shipping_cost(251) == 699
    assert pricing.shipping_cost(50_000) == 1999
    assert pricing.tax_on(1001) == 200  # 200.2 rounds down
    assert pricing.tax_on(1003) == 201  # 200.6 rounds up
    figures = pricing.totals([{"sku": "A", "qty": 3, "price": 999}], {"A": 110})
    assert (figures.subtotal, figures.weight, figures.shipping) == (2997, 330, 699)
    assert figures.tax == 739  # 20 % of 36.96 = 7.392
    assert figures.total == figures.subtotal + figures.shipping + figures.tax


# -- placing -------------------------------------------------------------------

def test_placing_writes_the_order_document(chinook):
    from catalog.models import Product

    from inventory.models import Inventory

    Inventory.objects.set_stock("CHK-0001", 5)
    product = Product.objects.get_by_sku("CHK-0001")
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, "CHK-0001", 2, {"title": product.title, "price": product.pricing.retail}, 10)
    order = place(cart.id, user_id="u1")
    document = Order.objects.collection.find_one({"number": order.number})
    assert document["status"] == "paid" and document["user_id"] == "u1"
    [line] = document["lines"]
    assert {key: line[key] for key in ("sku", "title", "qty", "price", "weight", "discount")} == {
        "sku": "CHK-0001", "title": product.title, "qty": 2, "price": product.pricing.retail,
        "weight": product.shipping.weight, "discount": 0}
    # Each line keeps its share of the order's tax: the shares add up to the cent.
    assert line["tax"] + document["shipping_tax"] == document["tax"] and line["tax"] > 0
    assert line["tax_rate"] == str(settings.SHOP_TAX_PERCENT)
    assert document["address"] == ADDRESS
    expected = pricing.totals([{"sku": "CHK-0001", "qty": 2, "price": product.pricing.retail}],
                              {"CHK-0001": product.shipping.weight})
    assert (document["subtotal"], document["shipping"], document["tax"], document["total"]) == (
        expected.subtotal, expected.shipping, expected.tax, expected.total)
    assert document["shipping"] > 0 and document["tax"] > 0
    assert document["payment"]["brand"] == "Visa" and document["payment"]["last4"] == "4242"
    assert charges()[document["payment"]["reference"]] == (expected.total, cart.id)
    assert "4242424242424242" not in repr(document)
    assert [change["status"] for change in document["history"]] == ["placed", "paid"]
    assert_invariant()


def test_a_second_checkout_of_the_same_cart_charges_nothing():
    from inventory.exceptions import CartInactive

    stock("A", 5)
    cart = cart_with(("A", 1))
    place(cart.id)
    taken = len(charges())
    with pytest.raises(CartInactive):
        place(cart.id)
    assert len(charges()) == taken and Order.objects.count() == 1


# -- statuses ------------------------------------------------------------------

def statuses(number):
    return [change.status for change in Order.objects.get_by_number(number).history]


def test_paid_shipped_delivered_with_the_shipping_notice():
    stock("A", 5)
    order = place(cart_with(("A", 2)).id)
    mail.outbox.clear()
    shipped = fulfilment.mark_shipped(order.number, note="parcel 1")
    assert shipped.status == "shipped"
    assert len(mail.outbox) == 1
    notice = mail.outbox[0]
    assert notice.to == ["ada@example.com"] and order.number in notice.subject and "shipped" in notice.subject
    assert "on its way" in notice.body and DETAILS["title"] in notice.body
    assert notice.alternatives[0][1] == "text/html" and "London" in notice.alternatives[0][0]
    assert fulfilment.mark_delivered(order.number).status == "delivered"
    assert statuses(order.number) == ["placed", "paid", "shipped", "delivered"]
    with pytest.raises(InvalidTransition):
        fulfilment.mark_shipped(order.number)
    assert inventory("A")["qty"] == 3
    assert_invariant()


def test_placed_to_paid():
    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    Order.objects.collection.update_one({"number": order.number}, {"$set": {"status": "placed"}})
    assert fulfilment.mark_paid(order.number).status == "paid"
    with pytest.raises(InvalidTransition, match="is paid"):
        fulfilment.mark_paid(order.number)


def test_cancel_before_shipping_returns_the_stock_and_refunds():
    stock("A", 5)
    stock("B", 5)
    order = place(cart_with(("A", 2), ("B", 1)).id)
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (3, 4)
    before = refunded()
    cancelled = fulfilment.cancel(order.number, note="customer asked")
    assert cancelled.status == "refunded" and Order.objects.get_by_number(order.number).restocked
    assert refunded() - before == {order.payment.reference}
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (5, 5)
    assert statuses(order.number) == ["placed", "paid", "cancelled", "refunded"]
    assert_invariant()
    # Twice: refused, nothing returned twice.
    with pytest.raises(InvalidTransition):
        fulfilment.cancel(order.number)
    assert inventory("A")["qty"] == 5 and len(refunded() - before) == 1
    assert_invariant()


def test_a_shipped_order_cannot_be_cancelled():
    stock("A", 5)
    order = place(cart_with(("A", 2)).id)
    fulfilment.mark_shipped(order.number)
    with pytest.raises(InvalidTransition, match="shipped"):
        fulfilment.cancel(order.number)
    assert inventory("A")["qty"] == 3
    assert_invariant()


def test_a_failed_refund_leaves_the_order_cancelled_and_can_be_retried():
    class Failing(StripeProvider):
        def refund(self, intent_id, amount=None, idempotency_key=None):
            raise PaymentError("provider down")

    stock("A", 5)
    order = place(cart_with(("A", 2)).id)
    with pytest.raises(OrderError, match="refund was refused"):
        fulfilment.cancel(order.number, provider=Failing())
    assert Order.objects.get_by_number(order.number).status == "cancelled"
    assert inventory("A")["qty"] == 5
    assert_invariant()
    assert fulfilment.refund(order.number).status == "refunded"


def test_unknown_order_number():
    with pytest.raises(OrderError):
        fulfilment.mark_shipped("CR-ZZZZZ")
    assert Order.objects.get_by_number("nonsense") is None


# -- e-mail ----------------------------------------------------------------------

def test_placing_sends_the_confirmation_as_html_and_text():
    stock("A", 5)
    mail.outbox.clear()
    order = place(cart_with(("A", 2)).id)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.com"] and order.number in message.subject
    assert "Total:" in message.body and f"2 x {DETAILS['title']}" in message.body
    assert "Visa ending 4242" in message.body and "SW1Y 4JH" in message.body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html" and f"<strong>{order.number}</strong>" in html


def test_the_email_escapes_what_shoppers_typed():
    stock("A", 5)
    mail.outbox.clear()
    cart = cart_with(("A", 1))
    place_order(cart.id, StripeProvider(), card_token(), "<b>Ada</b>", "ada@example.com", address=ADDRESS)
    html = mail.outbox[0].alternatives[0][0]
    assert "<b>Ada</b>" not in html and "&lt;b&gt;Ada&lt;/b&gt;" in html
