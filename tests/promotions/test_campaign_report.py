"""A campaign's report in the admin: its codes' uses, the discount they gave and the revenue of
their orders, from the codes' claims and the orders of those carts (two reads)."""

from core.mongo.counter import count_operations
from orders.refunds import refund_order
from promotions.models import Voucher
from promotions.reports import campaign_report
from tests.orders.test_orders import cart_with, place
from tests.support.inventory import stock


def batch(count=3):
    source = Voucher(code="SPRING", name="Spring", campaign="spring", benefit=Voucher.FIXED, value=500, limit=2)
    source.save()
    return sorted(Voucher.objects.create_batch(source, count, "SP"))


def test_uses_discount_and_revenue_of_a_campaign(admin_client):
    stock("A", 20)
    first, second, unused = batch()
    Voucher(code="OTHER", name="Other", campaign="autumn", benefit=Voucher.FIXED, value=300, limit=5).save()
    one = place(cart_with(("A", 2),).id, codes=(first,))
    two = place(cart_with(("A", 1),).id, codes=(first,))
    three = place(cart_with(("A", 3),).id, codes=(second,))
    place(cart_with(("A", 1),).id, codes=("OTHER",))
    place(cart_with(("A", 1),).id)
    refund_order(three.number, 100, "dent", by="kim", request="r1")
    with count_operations() as ops:
        report = campaign_report("spring")
    # Its codes, then their orders. (Counts see every thread: a Stripe webhook of the place()
    # calls above, answered meanwhile by the local Stripe's thread, is not the report's.)
    assert [op for op in ops.operations if not op[0].startswith("payment_")] == [
        ("vouchers", "find"), ("orders", "find")], ops
    assert (report.codes, report.codes_used, report.uses, report.pending) == (4, 2, 3, 0)
    assert report.discount == 1500 and report.discount == one.discount + two.discount + three.discount
    assert report.revenue == one.total + two.total + three.total and report.refunded == 100
    assert [(row["code"], row["uses"], row["discount"]) for row in report.rows] == [(first, 2, 1000), (second, 1, 500)]
    assert sorted(report.rows[0]["orders"]) == sorted([one.number, two.number])

    page = admin_client.get("/admin/promotions/voucher/campaign-report/?campaign=spring").content.decode()
    assert '<td class="num" id="campaign-uses">3</td>' in page and '<td class="num" id="campaign-discount">$15.00</td>' in page
    assert unused not in page and three.number in page
    voucher = Voucher.objects.get(code=first)
    change = admin_client.get(f"/admin/promotions/voucher/{voucher.pk}/change/").content.decode()
    assert "campaign-report/?campaign=spring" in change


def test_a_claim_without_an_order_is_pending_and_an_unknown_campaign_is_404(admin_client):
    (code,) = batch(1)
    voucher = Voucher.objects.get(code=code)
    assert Voucher.objects.claim(voucher.pk, 2, "cart-x", "key-x", "", "a@example.com", False)
    report = campaign_report("spring")
    assert (report.uses, report.pending, report.discount) == (0, 1, 0)
    assert admin_client.get("/admin/promotions/voucher/campaign-report/?campaign=nope").status_code == 404
    assert admin_client.get("/admin/promotions/voucher/campaign-report/").status_code == 404


def test_the_list_action_opens_the_report_of_one_campaign(admin_client):
    codes = batch(2)
    ids = [str(Voucher.objects.get(code=c).pk) for c in codes]
    response = admin_client.post("/admin/promotions/voucher/", {"action": "campaign_report", "_selected_action": ids})
    assert response.status_code == 302 and response["Location"].endswith("campaign-report/?campaign=spring")
