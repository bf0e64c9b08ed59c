"""Automatic offers: multibuy (the cheapest units free), fixed price, priority and exclusivity,
shares to the cent on each line; the cart page shows them without a code."""

import datetime
from types import SimpleNamespace

from bson import ObjectId

from core import clock
from orders import pricing
from promotions.models import Offer, Voucher

VINYL = ObjectId()


def fact(listed_in=()):
    return SimpleNamespace(price=None, weight=0, product_id=ObjectId(), product_sku="", product_type="Audio Album",
                           listed_in=tuple(listed_in), tax_class="")


def offer(name, **fields):
    made = Offer(name=name, **fields)
    made.save()
    return made


def price(lines, facts=None, *codes):
    return pricing.price(lines, facts or {}, pricing.PricingContext(codes=codes))


def test_three_for_two_frees_the_cheapest_units_of_the_range():
    offer("3 for 2 on vinyl", benefit=Offer.MULTIBUY, quantity=3, pay=2, include_categories=[str(VINYL)])
    facts = {"A": fact([VINYL]), "B": fact([VINYL]), "C": fact([VINYL]), "X": fact()}
    lines = [{"sku": "A", "qty": 2, "price": 1500}, {"sku": "B", "qty": 3, "price": 999},
             {"sku": "C", "qty": 1, "price": 2000}, {"sku": "X", "qty": 3, "price": 100}]
    priced = price(lines, facts)
    # 6 vinyl units: 2 sets, so the 2 cheapest (two of B) are free; X is out of range.
    assert [line.discount for line in priced.lines] == [0, 1998, 0, 0]
    assert priced.discounts == [{"code": "", "name": "3 for 2 on vinyl", "kind": "multibuy", "amount": 1998}]


def test_any_two_for_twenty_dollars_sets_dearest_first_shares_add_up():
    offer("Any 2 for $20", benefit=Offer.FIXED_PRICE, quantity=2, value=2000)
    lines = [{"sku": "A", "qty": 1, "price": 1599}, {"sku": "B", "qty": 2, "price": 1299},
             {"sku": "C", "qty": 1, "price": 999}]
    priced = price(lines)
    # Sets: (1599, 1299) -> 898 off; (1299, 999) -> 298 off.
    assert priced.discount == 898 + 298
    assert sum(line.discount for line in priced.lines) == priced.discount
    assert [line.discount for line in priced.lines] == [495, 403 + 168, 130]  # 898 x 1599 // 2898, the rest on the set's last unit


def test_priority_and_exclusive_offers_leave_the_rest_out():
    offer("Ten off", benefit=Offer.FIXED, value=1000, priority=1)
    offer("Half price", benefit=Offer.PERCENT, value=50, priority=5, exclusive=True)
    Voucher(code="CODE", name="Code", benefit=Voucher.FIXED, value=100).save()
    lines = [{"sku": "A", "qty": 1, "price": 4000}]
    priced = price(lines, None, "CODE")
    assert [d["name"] for d in priced.discounts] == ["Half price"] and priced.discount == 2000 and priced.claims == []
    half = Offer.objects.get(name="Half price")
    half.exclusive = False
    half.save()  # the cached offers are forgotten
    priced = price(lines, None, "CODE")
    assert [d["name"] for d in priced.discounts] == ["Half price", "Ten off", "Code"]
    assert priced.discount == 2000 + 1000 + 100


def test_inactive_and_out_of_date_offers_do_nothing():
    now = clock.now()
    offer("Off", benefit=Offer.FIXED, value=100, active=False)
    offer("Later", benefit=Offer.FIXED, value=100, starts_at=now + datetime.timedelta(hours=1))
    offer("Over", benefit=Offer.FIXED, value=100, ends_at=now)
    assert price([{"sku": "A", "qty": 1, "price": 4000}]).discount == 0


def test_a_multibuy_line_refunded_unit_by_unit_gives_back_what_was_paid(settings):
    settings.SHOP_TAX_PERCENT = 20
    offer("3 for 2", benefit=Offer.MULTIBUY, quantity=3, pay=2)
    priced = price([{"sku": "A", "qty": 3, "price": 999}])
    line = priced.lines[0].as_order_line()
    assert line["discount"] == 999
    parts = [pricing.refund_of_units(line, 1, before) for before in range(3)]
    assert sum(part["amount"] for part in parts) == priced.lines[0].paid


def test_the_offer_admin_refuses_a_multibuy_that_frees_everything(admin_client):
    data = {"name": "bad", "benefit": "multibuy", "value": "0", "quantity": "3", "pay": "3", "priority": "0",
            "min_order": "0", "active": "on", "starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": "",
            **{f"{side}_{what}": "" for side in ("include", "exclude")
               for what in ("categories", "types", "products", "skus")}}
    response = admin_client.post("/admin/promotions/offer/add/", data)
    assert response.status_code == 200 and "paying fewer" in response.content.decode()
    response = admin_client.post("/admin/promotions/offer/add/", {**data, "pay": "2"})
    assert response.status_code == 302 and Offer.objects.get(name="bad").pay == 2


def test_offers_are_read_once_then_cached_until_one_is_saved():
    from core.mongo.counter import count_operations

    made = offer("Ten off", benefit=Offer.FIXED, value=1000)
    lines = [{"sku": "A", "qty": 1, "price": 4000}]
    assert price(lines).discount == 1000
    with count_operations() as ops:
        assert price(lines).discount == 1000
    assert ops.total == 0, ops
    made.value = 500
    made.save()
    assert price(lines).discount == 500
