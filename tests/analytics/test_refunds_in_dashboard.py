"""The sales dashboard counts refunds: gross, refunds and net revenue per period, each refund once."""

import datetime

from analytics.models import Event, RollupProgress
from orders import fulfilment
from orders.models import Order
from orders.refunds import refund_lines, refund_order
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import stock


def test_net_revenue_is_the_orders_totals_less_their_refunds(admin_client):
    stock("A", 9)
    stock("B", 9)
    first = place(cart_with(("A", 2), ("B", 1)).id)
    second = place(cart_with(("A", 1),).id)
    refund_order(first.number, 250, "dent", by="kim", request="r1")
    fulfilment.ship(second.number, {0: 1}, "ups", "1Z", datetime.date(2026, 11, 28))
    line_refund = refund_lines(second.number, {0: 1}, "back", by="kim", request="r2")
    # A refund signal delivered twice (same order, request and time) is counted once.
    at = Event.objects.collection.find_one({"ref": f"refund:{first.number}:r1"})["ts"]
    assert not Event.objects.record_refund(first.number, "r1", 250, ts=at.replace(tzinfo=datetime.timezone.utc))
    RollupProgress.objects.rollup()
    totals = RollupProgress.objects.totals("daily")
    # Revenue is what the orders cost (their totals: after discounts, with tax and shipping),
    # so net revenue is the totals less the refunds (which give back tax too).
    sold = first.total + second.total
    assert first.tax and first.shipping and sold != first.subtotal + second.subtotal
    assert totals["total"] == sold
    assert totals["refunds"] == 250 + line_refund
    assert totals["net"] == sold - 250 - line_refund
    stored = [Order.objects.get_by_number(o.number) for o in (first, second)]
    assert totals["net"] == sum(o.total - o.refunded for o in stored)
    page = admin_client.get("/admin/analytics/").content.decode()
    assert "net revenue" in page
