"""The sales dashboard counts discounts: each sale line's share of its order's discounts is its
event's ``discount``, the rollups sum it per period (``discounts``), and net revenue is gross
less discounts and refunds."""

from analytics.models import Event, RollupProgress
from promotions.models import Voucher
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import stock


def test_discounts_given_are_rolled_up_per_period_and_shown(admin_client):
    stock("A", 9)
    stock("B", 9)
    Voucher(code="TENOFF", name="Ten off", benefit=Voucher.FIXED, value=1000, limit=5).save()
    first = place(cart_with(("A", 2), ("B", 1)).id, codes=("TENOFF",))
    second = place(cart_with(("A", 1),).id)
    assert first.discount == 1000 and second.discount == 0
    events = list(Event.objects.collection.find({"type": "sale"}, {"sku": 1, "discount": 1, "ref": 1}))
    assert sum(e["discount"] for e in events) == 1000
    assert sorted(e["discount"] for e in events if e["ref"].endswith(f"{first.cart_id}:1")) == [first.lines[0].discount]
    RollupProgress.objects.rollup()
    paid = first.total + second.total  # revenue is what was paid: the discounts are already off
    for level in ("daily", "monthly", "yearly"):
        totals = RollupProgress.objects.totals(level)
        assert (totals["total"], totals["discounts"], totals["net"]) == (paid, 1000, paid), level
    (day,) = RollupProgress.objects.buckets("daily")
    assert day["discounts"] == 1000
    page = admin_client.get("/admin/analytics/").content.decode()
    assert '<span id="discounts">$10.00</span>' in page
    assert '<td class="num">$10.00</td></tr>' in page  # the period's row in the table of figures
