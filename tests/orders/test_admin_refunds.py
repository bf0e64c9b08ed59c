"""Refunds from the admin: full or partial, through Stripe (the local one), recorded on the order
with who, when, how much and why; a second press of the same form refunds nothing more."""

import re
import threading

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

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
    data = {"amount": 500, "reason": "scratched sleeve", "request": key}
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
        admin_client.post(refund_url(order), {"amount": rest, "reason": "returned", "request": key})
    placed = Order.objects.get_by_number(order.number)
    assert placed.refunded == order.total and stripe_refunded(order) == order.total
    assert len(placed.refunds) == 2
    assert "Refund…" not in admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert LogEntry.objects.filter(object_id=str(order.pk)).count() == 2


def test_more_than_is_left_is_refused_and_changes_nothing(admin_client, order):
    response = admin_client.post(refund_url(order), {"amount": order.total + 1, "reason": "x",
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
        statuses.append(client.post(refund_url(order), {"amount": 700, "reason": "double click", "request": key})
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
