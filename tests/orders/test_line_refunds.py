"""Refunds of lines: what was paid for the units (their discount and tax shares as stored), never
more than is left, once per request under concurrency, the units back in stock once."""

import datetime
import threading

import pytest

from orders import fulfilment, pricing
from orders.exceptions import OrderError
from orders.models import Order
from orders.refunds import refund_lines, restock_refund
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import assert_invariant, inventory, stock
from tests.support.payments import refunded_amounts

DAY = datetime.date(2026, 11, 28)


@pytest.fixture
def order():
    """A shipped order of 3 x "A" and 1 x "B" whose line A carries a 100-cent discount share."""
    stock("A", 5)
    stock("B", 5)
    placed = place(cart_with(("A", 3), ("B", 1)).id)
    # The discount share as a promotion would have stored it (orders.pricing): 100 cents off line A.
    Order.objects.collection.update_one({"number": placed.number},
                                        {"$set": {"lines.0.discount": 100}, "$inc": {"total": -100}})
    fulfilment.ship(placed.number, {0: 3, 1: 1}, "ups", "1Z", DAY)
    return Order.objects.get_by_number(placed.number)


def test_a_return_of_one_of_three_units_is_refunded_at_its_discounted_taxed_price_and_restocked_once(order):
    line = order.lines[0]
    assert line.tax > 0 and line.discount == 100
    expected = (line.qty * line.price - line.discount) // 3 + line.tax // 3
    assert pricing.refund_of_units(line, 1)["amount"] == expected
    before = inventory("A")["qty"]
    assert refund_lines(order.number, {0: 1}, "cracked case", by="kim", request="r1") == expected
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == expected and refunded_amounts()[order.payment.reference] == expected
    assert stored.lines[0].refunded_units == 1 and stored.lines[0].restocked == 1
    assert stored.status == "partly returned" and stored.history[-1].status == "partly returned"
    (entry,) = stored.refunds
    assert (entry.status, entry.restock, [(l.sku, l.qty) for l in entry.lines]) == ("succeeded", "done", [("A", 1)])
    assert inventory("A")["qty"] == before + 1
    # Restocking again (a rerun, a second click) returns nothing more.
    assert restock_refund(order.number, "r1") == {}
    assert inventory("A")["qty"] == before + 1
    # The same request again refunds nothing.
    assert refund_lines(order.number, {0: 1}, "cracked case", by="kim", request="r1") == 0
    assert Order.objects.get_by_number(order.number).refunded == expected
    assert_invariant()


def test_every_unit_in_parts_gives_back_exactly_what_was_paid_and_the_order_is_returned(order):
    for i, units in enumerate(({0: 1}, {0: 2, 1: 1})):
        refund_lines(order.number, units, "back", by="kim", request=f"r{i}", restock=False)
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == sum(line.paid for line in order.lines)
    assert stored.status == "returned"
    assert [line.restocked for line in stored.lines] == [0, 0]


def test_a_refund_larger_than_what_is_left_is_refused_and_changes_nothing(order):
    refund_lines(order.number, {0: 3}, "all A", by="kim", request="r1")
    with pytest.raises(OrderError, match="left to refund"):
        refund_lines(order.number, {0: 1}, "one more", by="kim", request="r2")
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == order.lines[0].paid and len(stored.refunds) == 1
    # Money: what is left is less than line B's price once most was refunded by amount.
    from orders.refunds import refund_order, refundable
    refund_order(order.number, refundable(stored) - 1, "goodwill", by="kim", request="r3")
    with pytest.raises(OrderError, match="left to refund"):
        refund_lines(order.number, {1: 1}, "B", by="kim", request="r4")
    assert Order.objects.get_by_number(order.number).lines[1].refunded_units == 0


def test_two_staff_refunding_the_same_units_at_once_refund_once(order):
    """Eight threads refund 3 units of line A (distinct requests): one wins, seven are refused."""
    barrier = threading.Barrier(8)
    done, refused = [], []

    def run(i):
        barrier.wait()
        try:
            done.append(refund_lines(order.number, {0: 3}, "return", by=f"staff{i}", request=f"r{i}"))
        except OrderError:
            refused.append(i)

    before = inventory("A")["qty"]
    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = Order.objects.get_by_number(order.number)
    assert len(done) == 1 and len(refused) == 7
    assert stored.refunded == order.lines[0].paid == refunded_amounts()[order.payment.reference]
    assert stored.lines[0].refunded_units == 3 and inventory("A")["qty"] == before + 3
    assert_invariant()


def test_concurrent_restocks_of_one_refund_put_the_units_back_once(order):
    refund_lines(order.number, {0: 2}, "return", by="kim", request="r1", restock=False)
    Order.objects.collection.update_one({"number": order.number, "refunds.request": "r1"},
                                        {"$set": {"refunds.$.restock": "due"}})
    before = inventory("A")["qty"]
    barrier = threading.Barrier(6)
    results = []

    def run():
        barrier.wait()
        results.append(restock_refund(order.number, "r1"))

    threads = [threading.Thread(target=run) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=len) == [{}] * 5 + [{"A": 2}]
    assert inventory("A")["qty"] == before + 2


def test_a_provider_refusal_takes_the_reservation_back(order):
    from orders.payments import PaymentError

    class Refusing:
        def refund(self, *args, **kwargs):
            raise PaymentError("card closed")

    with pytest.raises(OrderError, match="refused"):
        refund_lines(order.number, {0: 1}, "x", by="kim", request="r1", provider=Refusing())
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == 0 and not stored.refunds and stored.lines[0].refunded_units == 0


def test_staff_refund_lines_in_the_admin_confirmed_in_words(admin_client, order):
    url = f"/admin/orders/order/{order.pk}/refund-lines/"
    page = admin_client.get(url).content.decode()
    assert "units_0" in page and "units_1" in page
    expected = pricing.refund_of_units(order.lines[0], 1)["amount"]
    data = {"units_0": 1, "units_1": 0, "reason": "cracked", "restock": "on", "request": "k1"}
    confirm = admin_client.post(url, data).content.decode()
    assert "Yes, refund" in confirm and f'name="confirm" value="{expected}"' in confirm
    assert Order.objects.get_by_number(order.number).refunded == 0
    before = inventory("A")["qty"]
    done = admin_client.post(url, {**data, "restock": "True", "confirm": expected}, follow=True)
    assert "refunded" in done.content.decode()
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == expected and stored.lines[0].restocked == 1
    assert inventory("A")["qty"] == before + 1
    refused = admin_client.post(url, {"units_0": 9, "units_1": 0, "reason": "x", "request": "k2"})
    assert refused.status_code == 200 and "errorlist" in refused.content.decode()
