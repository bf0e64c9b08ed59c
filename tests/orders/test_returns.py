"""Returns a shopper starts (orders.returns): the window, the units left, each step's guarded
write and e-mail, refund at what was paid and restock once, concurrency, the recovery of a
refund whose restock did not run."""

import datetime
import threading

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from core import clock
from orders import fulfilment, pricing, returns
from orders.exceptions import OrderError
from orders.models import Order, ReturnRequest
from tests.orders.test_line_refunds import DAY, order  # noqa: F401  (the shipped order with a discount share)
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import assert_invariant, inventory, stock
from tests.support.payments import refunded_amounts



def shopper(order):
    """A client whose session placed ``order`` (as the order page allows)."""
    client = Client()
    session = client.session
    session["orders"] = [order.number]
    session.save()
    return client


def received(order, units, by="ada@example.com"):
    """A return of ``units`` of ``order`` taken to received."""
    request = returns.request_return(order.number, units, "damaged", "", by=by)
    returns.approve(request.pk, "kim")
    returns.receive(request.pk, "kim")
    return request


def test_a_return_of_one_of_three_units_is_refunded_at_its_discounted_taxed_price_and_restocked_once(order):
    line = order.lines[0]
    assert line.tax > 0 and line.discount == 100
    expected = (line.qty * line.price - line.discount) // 3 + line.tax // 3
    assert pricing.refund_of_units(line, 1)["amount"] == expected
    mail.outbox.clear()
    request = received(order, {0: 1})
    before = inventory("A")["qty"]
    done = returns.refund(request.pk, "kim")
    assert (done.status, done.amount) == ("refunded", expected)
    assert [e.status for e in done.events] == ["requested", "approved", "received", "refunding", "refunded"]
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == expected == refunded_amounts()[order.payment.reference]
    assert stored.lines[0].refunded_units == 1 and stored.lines[0].restocked == 1
    assert stored.lines[0].return_requested == 0 and stored.open_returns == []
    assert stored.status == "partly returned"
    assert inventory("A")["qty"] == before + 1
    # Restock again (a rerun of the recovery) returns nothing more.
    assert returns.recover(older_than=datetime.timedelta(0)) == {"restocked": 0, "returns": 0}
    assert inventory("A")["qty"] == before + 1
    # An e-mail per step, each naming it; the timeline lists the return's events.
    # Each step's e-mail; the refund's credit note comes in an e-mail of its own (orders.invoices).
    steps = [m for m in mail.outbox if ", return " in m.subject]
    assert [m.subject.rsplit(" ", 1)[-1] for m in steps] == ["requested", "approved", "received", "refunded"]
    assert "$" in steps[-1].body and f"{expected / 100:.2f}" in steps[-1].body
    assert [m for m in mail.outbox if "(credit note CN-" in m.subject]
    texts = [e.text for e in stored.timeline() if e.kind == "return"]
    assert [t.split(":")[0] for t in texts] == ["Return requested", "Return approved", "Return received",
                                                "Return refunding", "Return refunded"]
    assert_invariant()


def test_the_units_asked_for_are_held_until_refused(order):
    first = returns.request_return(order.number, {0: 2}, "unwanted", "", by="ada@example.com")
    with pytest.raises(OrderError, match=r"Only 1 unit\(s\) of .* can be returned"):
        returns.request_return(order.number, {0: 2}, "unwanted", "", by="ada@example.com")
    with pytest.raises(OrderError, match="Say why"):
        returns.refuse(first.pk, "kim", "  ")
    returns.refuse(first.pk, "kim", "worn")
    assert Order.objects.get_by_number(order.number).lines[0].return_requested == 0
    returns.request_return(order.number, {0: 3}, "unwanted", "", by="ada@example.com")
    # The refused one and the new one are both listed on the order.
    assert [r.status for r in ReturnRequest.objects.for_order(Order.objects.get_by_number(order.number))] == [
        "requested", "refused"]


def test_more_units_than_shipped_are_refused_with_a_clear_message(order):
    stock("C", 5)
    partly = place(cart_with(("C", 3),).id)
    fulfilment.ship(partly.number, {0: 1}, "ups", "1Z", DAY)
    with pytest.raises(OrderError, match=r"Only 1 unit\(s\) of .* can be returned \(1 shipped"):
        returns.request_return(partly.number, {0: 2}, "damaged", "", by="ada@example.com")
    assert ReturnRequest.objects.count() == 0
    assert not Order.objects.get_by_number(partly.number).return_ids
    # In the page: the form refuses more than the units left, with the reason, nothing recorded.
    response = shopper(partly).post(f"/order/{partly.number}/return/", {"units_0": 2, "reason": "damaged"})
    assert response.status_code == 400
    assert "At most 1 unit(s) of" in response.content.decode()
    assert ReturnRequest.objects.count() == 0


def test_a_request_outside_the_window_is_refused_with_a_clear_message(order, monkeypatch, settings):
    settings.SHOP_RETURN_WINDOW_DAYS = 30
    later = clock.now() + datetime.timedelta(days=31)
    monkeypatch.setattr(clock, "now", lambda: later)
    with pytest.raises(OrderError, match="return window of 30 days closed on"):
        returns.request_return(order.number, {0: 1}, "damaged", "", by="ada@example.com")
    response = shopper(order).post(f"/order/{order.number}/return/", {"units_0": 1, "reason": "damaged"})
    assert response.status_code == 400 and "return window of 30 days closed" in response.content.decode()
    assert ReturnRequest.objects.count() == 0
    page = shopper(order).get(order.get_absolute_url()).content.decode()
    assert "return-form" not in page


def test_a_paid_order_not_shipped_has_nothing_to_return():
    stock("A", 5)
    paid = place(cart_with(("A", 1),).id)
    with pytest.raises(OrderError, match="Nothing of this order has shipped"):
        returns.request_return(paid.number, {0: 1}, "damaged", "", by="ada@example.com")


def test_a_refund_larger_than_what_is_left_is_refused_and_the_return_stays_received(order):
    from orders.refunds import refund_order, refundable

    request = received(order, {0: 1})
    refund_order(order.number, refundable(order) - 1, "goodwill", by="kim", request="g1")
    with pytest.raises(OrderError, match="left to refund"):
        returns.refund(request.pk, "kim")
    stored = ReturnRequest.objects.get_by_id(request.pk)
    assert stored.status == "received" and "refund refused" in stored.events[-1].note
    assert Order.objects.get_by_number(order.number).lines[0].refunded_units == 0


def test_twenty_staff_refunding_the_same_return_at_once_refund_once(order):
    request = received(order, {0: 2})
    before = inventory("A")["qty"]
    barrier = threading.Barrier(20)
    done, refused = [], []

    def run(i):
        barrier.wait()
        try:
            done.append(returns.refund(request.pk, f"staff{i}"))
        except OrderError:
            refused.append(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(done) == 1 and len(refused) == 19
    expected = pricing.refund_of_units(order.lines[0], 2)["amount"]
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunded == expected == refunded_amounts()[order.payment.reference]
    assert len(stored.refunds) == 1 and stored.lines[0].restocked == 2
    assert inventory("A")["qty"] == before + 2
    assert ReturnRequest.objects.get_by_id(request.pk).status == "refunded"
    assert_invariant()


def test_two_staff_approving_at_once_approve_once(order):
    request = returns.request_return(order.number, {1: 1}, "wrong", "", by="ada@example.com")
    barrier = threading.Barrier(10)
    outcomes = []

    def run(i):
        barrier.wait()
        try:
            returns.approve(request.pk, f"staff{i}")
            outcomes.append("approved")
        except OrderError:
            outcomes.append("refused")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("approved") == 1
    assert [e.status for e in ReturnRequest.objects.get_by_id(request.pk).events] == ["requested", "approved"]


def test_a_crash_between_the_refund_and_the_restock_is_finished_by_reconcile_payments(order, monkeypatch):
    """The restock step dies (injected) after Stripe refunded: the refund is recorded, the units
    not back; reconcile_payments restocks them once and marks the return refunded."""
    from orders import refunds

    request = received(order, {0: 1})
    before = inventory("A")["qty"]

    def crash(number, request):
        raise RuntimeError("worker killed")

    monkeypatch.setattr(refunds, "restock_refund", crash)
    with pytest.raises(RuntimeError):
        returns.refund(request.pk, "kim")
    monkeypatch.undo()
    stored = Order.objects.get_by_number(order.number)
    assert stored.refunds[0].status == "succeeded" and stored.refunds[0].restock == "due"
    assert inventory("A")["qty"] == before
    assert ReturnRequest.objects.get_by_id(request.pk).status == "refunding"
    assert Order.objects.restocks_due() == [(order.number, request.refund_request)]
    # Recovery leaves a return that may still be running alone (its last step is recent) ...
    call_command("reconcile_payments", "--older-than", "0")
    stored = Order.objects.get_by_number(order.number)
    assert stored.lines[0].restocked == 1 and inventory("A")["qty"] == before + 1
    assert Order.objects.restocks_due() == []
    # ... and settles it once it is older than its lease.
    assert returns.recover(older_than=datetime.timedelta(0)) == {"restocked": 0, "returns": 1}
    done = ReturnRequest.objects.get_by_id(request.pk)
    assert done.status == "refunded" and done.amount == stored.refunded
    assert returns.recover(older_than=datetime.timedelta(0)) == {"restocked": 0, "returns": 0}
    assert inventory("A")["qty"] == before + 1
    assert_invariant()


def test_the_shopper_asks_from_the_order_page_and_sees_each_step(order):
    client = shopper(order)
    page = client.get(order.get_absolute_url()).content.decode()
    assert 'class="return-form"' in page and "units_0" in page and "up to 3" in page
    response = client.post(f"/order/{order.number}/return/", {"units_0": 1, "units_1": 0, "reason": "damaged",
                                                              "comment": "cracked"}, follow=True)
    assert "Your return request is recorded" in response.content.decode()
    request = ReturnRequest.objects.get()
    assert request.comment == "cracked" and request.email == order.email
    assert "return-requested" in response.content.decode()
    returns.refuse(request.pk, "kim", "opened and used")
    page = client.get(order.get_absolute_url()).content.decode()
    assert "return-refused" in page and "Why: opened and used" in page
    # Someone else's session: a 404, nothing recorded.
    assert Client().post(f"/order/{order.number}/return/", {"units_0": 1, "reason": "damaged"}).status_code == 404
    # A reason not offered, a negative count: the form says so.
    response = client.post(f"/order/{order.number}/return/", {"units_0": -1, "reason": "because"})
    assert response.status_code == 400 and "errorlist" in response.content.decode()
    assert ReturnRequest.objects.count() == 1


def test_staff_take_a_return_through_its_steps_in_the_admin(admin_client, order):
    request = returns.request_return(order.number, {0: 1}, "damaged", "", by="ada@example.com")
    change = f"/admin/orders/returnrequest/{request.pk}/change/"
    assert "step-approve" in admin_client.get(change).content.decode()
    step = f"/admin/orders/returnrequest/{request.pk}/step/"
    admin_client.post(step + "approve/", {"note": "use the label"})
    assert admin_client.post(step + "approve/").status_code == 302  # again: nothing more
    assert [e.status for e in ReturnRequest.objects.get_by_id(request.pk).events] == ["requested", "approved"]
    admin_client.post(step + "receive/", {})
    expected = pricing.refund_of_units(order.lines[0], 1)["amount"]
    confirm = admin_client.get(step + "refund/").content.decode()
    assert f'name="confirm" value="{expected}"' in confirm and "Yes, refund" in confirm
    admin_client.post(step + "refund/", {"confirm": expected + 1})  # not the amount shown: nothing moves
    assert Order.objects.get_by_number(order.number).refunded == 0
    admin_client.post(step + "refund/", {"confirm": expected})
    assert ReturnRequest.objects.get_by_id(request.pk).status == "refunded"
    assert Order.objects.get_by_number(order.number).refunded == expected
    timeline = admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert "Return refunded" in timeline
    assert admin_client.get(step + "nonsense/").status_code == 404
    assert admin_client.get(f"/admin/orders/returnrequest/?q={order.number}").status_code == 200


def test_ten_tabs_asking_for_the_last_units_at_once_hold_them_once(order):
    """Ten requests for 2 of line A's 3 units at once: one is recorded, the others are refused
    (the claim on the order is a compare-and-set on the lines' units) and leave nothing behind."""
    barrier = threading.Barrier(10)
    made, refused = [], []

    def run():
        barrier.wait()
        try:
            made.append(returns.request_return(order.number, {0: 2}, "unwanted", "", by="ada@example.com"))
        except OrderError:
            refused.append(1)

    threads = [threading.Thread(target=run) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and len(refused) == 9
    stored = Order.objects.get_by_number(order.number)
    assert stored.lines[0].return_requested == 2 and stored.return_ids == [str(made[0].pk)]
    assert ReturnRequest.objects.count() == 1
