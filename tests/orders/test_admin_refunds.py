"""Refunds from the admin: full or partial, through Stripe (the local one), recorded on the order
with who, when, how much and why; a second press of the same form refunds nothing more."""

import re
import threading

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from core.money import dollars
from inventory.models import Cart
from orders.checkout import place_order
from orders.models import Order
from orders.payments import StripeProvider
from tests.support.inventory import add, stock
from tests.support.payments import card_token, refunded_amounts


@pytest.fixture
def order():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    return place_order(cart.id, StripeProvider(), card_token(), "Ada Lovelace", "ada@example.com")


def refund_url(order):
    return f"/admin/orders/order/{order.pk}/refund/"


def form_key(client, order):
    """The one-time key of a freshly shown refund form."""
    page = client.get(refund_url(order)).content.decode()
    return re.search(r'name="request" value="([0-9a-f]+)"', page).group(1)


def stripe_refunded(order):
    return refunded_amounts()[order.payment.reference]


def test_a_partial_then_a_full_refund_each_pressed_twice(admin_client, order):
    key = form_key(admin_client, order)
    data = {"amount": "5.00", "reason": "scratched sleeve", "request": key, "confirm": 500}
    first = admin_client.post(refund_url(order), data, follow=True)
    assert "$5.00 refunded" in first.content.decode()
    again = admin_client.post(refund_url(order), data, follow=True)  # the same form, pressed again
    assert "already made" in again.content.decode()
    placed = Order.objects.get_by_number(order.number)
    assert placed.refunded == 500 and stripe_refunded(order) == 500
    (entry,) = placed.refunds
    assert (entry.amount, entry.by, entry.reason, entry.status) == (500, "admin", "scratched sleeve", "succeeded")
    assert entry.refund_id.startswith("re_") and entry.at is not None
    page = admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert "scratched sleeve" in page and "$5.00" in page

    rest = order.total - 500
    key = form_key(admin_client, order)
    for _ in range(2):
        admin_client.post(refund_url(order), {"amount": str(dollars(rest)), "reason": "returned", "request": key,
                                              "confirm": rest})
    placed = Order.objects.get_by_number(order.number)
    assert placed.refunded == order.total and stripe_refunded(order) == order.total
    assert len(placed.refunds) == 2
    assert "Refund…" not in admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert LogEntry.objects.filter(object_id=str(order.pk)).count() == 2


def test_more_than_is_left_is_refused_and_changes_nothing(admin_client, order):
    response = admin_client.post(refund_url(order), {"amount": str(dollars(order.total + 1)), "reason": "x",
                                                     "request": form_key(admin_client, order)})
    assert response.status_code == 200 and "left to refund" in response.content.decode()
    assert Order.objects.get_by_number(order.number).refunded == 0
    assert refunded_amounts()[order.payment.reference] == 0


def test_two_presses_at_once_refund_once(admin_user, order):
    key = None
    clients = []
    for _ in range(4):
        client = Client()
        client.force_login(admin_user)
        clients.append(client)
    key = form_key(clients[0], order)
    start = threading.Barrier(4)
    statuses = []

    def press(client):
        start.wait()
        statuses.append(client.post(refund_url(order), {"amount": "7.00", "reason": "double click", "request": key,
                                                       "confirm": 700})
                        .status_code)

    threads = [threading.Thread(target=press, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert statuses == [302] * 4
    placed = Order.objects.get_by_number(order.number)
    assert placed.refunded == 700 and len(placed.refunds) == 1 and stripe_refunded(order) == 700


def test_staff_with_view_permission_only_cannot_refund(client, order, django_user_model):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_order"))
    client.force_login(viewer)
    assert client.get(refund_url(order)).status_code == 403
    assert Order.objects.get_by_number(order.number).refunded == 0


def test_the_amount_is_in_dollars_and_confirmed_in_words_before_money_moves(admin_client, order):
    """"5.00" and "5" are $5.00, never 5 cents; the first press only says the amount in words."""
    assert order.total > 500
    key = form_key(admin_client, order)
    for typed in ("5.00", "5"):
        page = admin_client.post(refund_url(order), {"amount": typed, "reason": "dent", "request": key})
        text = page.content.decode()
        assert page.status_code == 200 and "five dollars, zero cents" in text and "Yes, refund $5.00" in text
        assert 'name="confirm" value="500"' in text
    assert Order.objects.get_by_number(order.number).refunded == 0 and stripe_refunded(order) == 0
    # A confirmation of another amount than the one typed is asked again, not taken.
    again = admin_client.post(refund_url(order), {"amount": "5.00", "reason": "dent", "request": key, "confirm": 5})
    assert "five dollars" in again.content.decode()
    for typed in ("5.001", "-5", "five", "0.00", "1,000"):
        refused = admin_client.post(refund_url(order), {"amount": typed, "reason": "dent", "request": key,
                                                        "confirm": 500})
        assert refused.status_code == 200 and "errorlist" in refused.content.decode()
    assert Order.objects.get_by_number(order.number).refunded == 0 and stripe_refunded(order) == 0
    done = admin_client.post(refund_url(order), {"amount": "5.00", "reason": "dent", "request": key, "confirm": 500},
                             follow=True)
    assert "$5.00 refunded" in done.content.decode()
    assert Order.objects.get_by_number(order.number).refunded == 500 and stripe_refunded(order) == 500
