"""The orders desk in the admin: list, search, filters, detail, actions with LogEntry, permissions."""

import datetime

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.core import mail

from inventory.models import Cart
from orders.checkout import place_order
from orders.models import Order
from orders.payments import StripeProvider

from tests.support.payments import card_token, refunded
from tests.support.inventory import add, assert_invariant, inventory, stock

ORDER_LIST = "/admin/orders/order/"
ADDRESS = {"name": "Ada Lovelace", "line1": "1 Analytical Row", "line2": "", "city": "London",
           "postcode": "N1 9GU", "country": "GB"}


def order_url(order):
    return f"/admin/orders/order/{order.pk}/change/"


def place(email="ada@example.com", qty=2):
    cart = Cart.objects.create_cart()
    add(cart.id, "A", qty)
    return place_order(cart.id, StripeProvider(), card_token(), "Ada Lovelace", email, address=ADDRESS)


@pytest.fixture
def orders():
    stock("A", 50)
    return [place("ada@example.com"), place("bob@example.com", 1)]


def test_list_shows_number_date_customer_total_status(admin_client, orders):
    html = admin_client.get(ORDER_LIST).content.decode()
    for order in orders:
        assert order.number in html and order.email in html
    assert "paid" in html and "$" in html


def test_search_by_number_and_email(admin_client, orders):
    ada, bob = orders
    html = admin_client.get(ORDER_LIST, {"q": bob.number.lower()}).content.decode()
    assert bob.number in html and ada.number not in html
    html = admin_client.get(ORDER_LIST, {"q": "ada@"}).content.decode()
    assert ada.number in html and bob.number not in html
    html = admin_client.get(ORDER_LIST, {"q": ".*"}).content.decode()  # not a regex
    assert ada.number not in html


def test_filters_by_status_and_date(admin_client, orders):
    ada, bob = orders
    Order.objects.collection.update_one(
        {"number": ada.number},
        {"$set": {"placed_at": datetime.datetime(2020, 1, 1), "status": "shipped"}})
    html = admin_client.get(ORDER_LIST, {"status__exact": "shipped"}).content.decode()
    assert ada.number in html and bob.number not in html
    # The filter's own "Today" link (aware UTC midnights, as DateFieldListFilter writes them).
    today = datetime.datetime.now(datetime.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    html = admin_client.get(ORDER_LIST, {"placed_at__gte": str(today),
                                         "placed_at__lt": str(today + datetime.timedelta(days=1))})
    html = html.content.decode()
    assert bob.number in html and ada.number not in html


def test_detail_page_shows_lines_address_payment_and_history(admin_client, orders):
    html = admin_client.get(order_url(orders[0])).content.decode()
    assert "Analytical Row" in html and "Visa ending 4242" in html
    assert "A" in html and "placed" in html and "paid" in html
    assert 'name="_save"' not in html
    assert "4242424242424242" not in html


def test_ship_action_sends_the_notice_and_logs(admin_client, orders):
    ada, _bob = orders
    mail.outbox.clear()
    response = admin_client.post(ORDER_LIST, {"action": "ship", "_selected_action": [ada.pk]}, follow=True)
    assert "1 order(s): marked shipped" in response.content.decode()
    assert Order.objects.get_by_number(ada.number).status == "shipped"
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]
    (entry,) = LogEntry.objects.filter(action_flag=CHANGE)
    assert entry.object_id == str(ada.pk) and "shipped" in entry.change_message
    history = Order.objects.get_by_number(ada.number).history
    assert history[-1].note == "by admin"


def test_cancel_action_returns_stock_refunds_and_refuses_shipped_orders(admin_client, orders):
    ada, bob = orders
    admin_client.post(ORDER_LIST, {"action": "ship", "_selected_action": [bob.pk]})
    before = refunded()
    response = admin_client.post(ORDER_LIST, {"action": "cancel_and_refund",
                                              "_selected_action": [ada.pk, bob.pk]}, follow=True)
    html = response.content.decode()
    assert "1 order(s): cancelled" in html and "is shipped: it cannot become cancelled" in html
    assert Order.objects.get_by_number(ada.number).status == "refunded"
    assert Order.objects.get_by_number(bob.number).status == "shipped"
    assert len(refunded() - before) == 1
    assert inventory("A")["qty"] == 50 - 1
    assert LogEntry.objects.filter(action_flag=CHANGE).count() == 2  # ship bob, cancel ada
    assert_invariant()


def test_deliver_action(admin_client, orders):
    ada, _ = orders
    admin_client.post(ORDER_LIST, {"action": "ship", "_selected_action": [ada.pk]})
    admin_client.post(ORDER_LIST, {"action": "deliver", "_selected_action": [ada.pk]})
    assert Order.objects.get_by_number(ada.number).status == "delivered"


def test_orders_are_not_added_or_deleted_here(admin_client, orders):
    assert admin_client.get("/admin/orders/order/add/").status_code == 403
    assert admin_client.get(f"/admin/orders/order/{orders[0].pk}/delete/").status_code == 403


def test_staff_without_permission(client, django_user_model, orders):
    from django.contrib.auth.models import Permission

    ada, _ = orders
    nobody = django_user_model.objects.create_user("nobody", password="pw", is_staff=True)
    client.force_login(nobody)
    assert client.get(ORDER_LIST).status_code == 403
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_order"))
    client.force_login(viewer)
    html = client.get(ORDER_LIST).content.decode()
    assert ada.number in html and "cancel_and_refund" not in html
    client.post(ORDER_LIST, {"action": "cancel_and_refund", "_selected_action": [ada.pk]})
    assert Order.objects.get_by_number(ada.number).status == "paid"
    assert LogEntry.objects.count() == 0
