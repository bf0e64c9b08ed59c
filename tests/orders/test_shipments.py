"""Fulfilment in parts: shipments of some lines or units, the status that follows from the lines,
an e-mail per shipment with its tracking link, the shopper's page, the packing slip."""

import datetime
import threading

import pytest
from django.core import mail
from django.test import Client

from orders import fulfilment
from orders.exceptions import InvalidTransition, OrderError
from orders.models import Order
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import stock

DAY = datetime.date(2026, 11, 28)


@pytest.fixture
def order():
    """A paid order: line 0 is 3 of "A", line 1 is 1 of "B"."""
    stock("A", 5)
    stock("B", 5)
    return place(cart_with(("A", 3), ("B", 1)).id)


def test_an_order_shipped_in_two_shipments_with_the_status_after_each(order):
    mail.outbox.clear()
    first, shipment = fulfilment.ship(order.number, {0: 2}, "ups", "1Z 999", DAY, by="kim")
    assert first.status == "partly shipped" and shipment.number == 1
    assert [line.shipped for line in first.lines] == [2, 0]
    assert [(line.sku, line.qty) for line in shipment.lines] == [("A", 2)]
    (notice,) = mail.outbox
    assert notice.to == ["ada@example.com"] and "shipment 1" in notice.subject
    assert "https://www.ups.com/track?tracknum=1Z%20999" in notice.body
    assert "follows in another parcel" in notice.body
    assert "https://www.ups.com/track?tracknum=1Z%20999" in notice.alternatives[0][0]

    second, shipment = fulfilment.ship(order.number, {0: 1, 1: 1}, "usps", "94001", DAY, by="kim")
    assert second.status == "shipped" and shipment.number == 2
    stored = Order.objects.get_by_number(order.number)
    assert stored.status == "shipped" and [line.shipped for line in stored.lines] == [3, 1]
    assert [(s.number, s.carrier, s.tracking, s.shipped_on, s.by) for s in stored.shipments] == [
        (1, "ups", "1Z 999", DAY, "kim"), (2, "usps", "94001", DAY, "kim")]
    # The history got each shipment's entry in the same write as the status.
    assert [change.status for change in stored.history] == ["placed", "paid", "partly shipped", "shipped"]
    assert "shipment 2" in stored.history[-1].note
    assert len(mail.outbox) == 2 and "follows" not in mail.outbox[1].body
    # Nothing is left to ship: a third shipment is refused.
    with pytest.raises(InvalidTransition):
        fulfilment.ship(order.number, {0: 1}, "ups", "x", DAY)


def test_more_units_than_are_left_or_no_units_are_refused_and_nothing_changes(order):
    fulfilment.ship(order.number, {0: 2}, "ups", "1", DAY)
    for units in ({0: 2}, {}, {0: 0}, {5: 1}, {0: -1}):
        with pytest.raises(OrderError):
            fulfilment.ship(order.number, units, "ups", "2", DAY)
    stored = Order.objects.get_by_number(order.number)
    assert [line.shipped for line in stored.lines] == [2, 0] and len(stored.shipments) == 1


def test_a_cancelled_order_cannot_ship(order):
    fulfilment.cancel(order.number)
    with pytest.raises(InvalidTransition):
        fulfilment.ship(order.number, {0: 1}, "ups", "1", DAY)
    assert not Order.objects.get_by_number(order.number).shipments


def test_eight_staff_shipping_one_unit_each_at_once_ship_three(order):
    """Line 0 has 3 units: of 8 concurrent one-unit shipments exactly 3 are recorded."""
    barrier = threading.Barrier(8)
    done, refused = [], []

    def run(i):
        barrier.wait()
        try:
            done.append(fulfilment.ship(order.number, {0: 1}, "ups", f"T{i}", DAY)[1].number)
        except OrderError:
            refused.append(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = Order.objects.get_by_number(order.number)
    assert sorted(done) == [1, 2, 3] and len(refused) == 5
    assert stored.lines[0].shipped == 3 and len(stored.shipments) == 3
    assert sorted(s.number for s in stored.shipments) == [1, 2, 3]
    assert stored.status == "partly shipped"  # line 1 is still waiting
    assert len(stored.history) == 2 + 3


def test_the_shopper_sees_each_shipment_with_its_tracking_link(order):
    fulfilment.ship(order.number, {0: 2}, "ups", "1Z999", DAY)
    client = Client()
    session = client.session
    session["orders"] = [order.number]
    session.save()
    page = client.get(order.get_absolute_url()).content.decode()
    assert "partly shipped" in page and "Shipment 1" in page
    assert 'href="https://www.ups.com/track?tracknum=1Z999"' in page


def test_staff_ship_from_the_admin_and_print_the_packing_slip(admin_client, order):
    url = f"/admin/orders/order/{order.pk}/ship/"
    form = admin_client.get(url).content.decode()
    assert "units_0" in form and "units_1" in form
    refused = admin_client.post(url, {"units_0": 4, "units_1": 0, "carrier": "ups", "tracking": "1Z",
                                      "shipped_on": "2026-11-28"})
    assert refused.status_code == 200 and "at most 3" in refused.content.decode()
    nothing = admin_client.post(url, {"units_0": 0, "units_1": 0, "carrier": "ups", "tracking": "1Z",
                                      "shipped_on": "2026-11-28"})
    assert "at least one unit" in nothing.content.decode()
    assert not Order.objects.get_by_number(order.number).shipments
    done = admin_client.post(url, {"units_0": 1, "units_1": 1, "carrier": "dhl", "tracking": "JD01",
                                   "shipped_on": "2026-11-28"}, follow=True)
    assert "Shipment 1 recorded" in done.content.decode()
    stored = Order.objects.get_by_number(order.number)
    assert stored.status == "partly shipped" and [line.shipped for line in stored.lines] == [1, 1]
    change = admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert "JD01" in change and f"/admin/orders/order/{order.pk}/shipment/1/slip/" in change
    slip = admin_client.get(f"/admin/orders/order/{order.pk}/shipment/1/slip/")
    text = slip.content.decode()
    assert slip.status_code == 200 and "Packing slip" in text and order.number in text and "London" in text
    assert "JD01" in text and "1 × " in text
    assert admin_client.get(f"/admin/orders/order/{order.pk}/shipment/9/slip/").status_code == 404


def test_the_timeline_shows_every_event_to_staff_and_the_public_ones_to_the_shopper(admin_client, order):
    from orders.refunds import refund_order

    fulfilment.ship(order.number, {0: 3, 1: 1}, "ups", "1Z9", DAY, by="kim")
    refund_order(order.number, 150, "late parcel", by="kim", request="r1")
    refused = admin_client.post(f"/admin/orders/order/{order.pk}/note/", {"text": "  "}, follow=True)
    assert "1 to 1000" in refused.content.decode()
    assert admin_client.get(f"/admin/orders/order/{order.pk}/note/").status_code == 200
    admin_client.post(f"/admin/orders/order/{order.pk}/note/", {"text": "Customer <b>called</b>"})
    stored = Order.objects.get_by_number(order.number)
    assert [e.kind for e in stored.timeline()] == ["status", "status", "status", "shipment", "refund", "note"]
    change = admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert "Customer &lt;b&gt;called&lt;/b&gt;" in change and "staff only" in change
    assert "$1.50 refunded: late parcel" in change and "Shipment 1 sent with UPS" in change
    client = Client()
    session = client.session
    session["orders"] = [order.number]
    session.save()
    page = client.get(order.get_absolute_url()).content.decode()
    assert "Shipment 1 sent with UPS" in page and "$1.50 refunded" in page
    assert "called" not in page
