"""Discount codes in the pricing pipeline: ranges, benefits, rounding to the cent, refunds of a line."""

import datetime
from types import SimpleNamespace

from bson import ObjectId

from core import clock
from orders import pricing
from promotions.models import Voucher
from promotions.rules import EXPIRED, NOT_APPLICABLE, USED_UP, Refusal, check

ROCK, JAZZ, MUSIC = ObjectId(), ObjectId(), ObjectId()


def fact(product_type="Audio Album", listed_in=(), product_id=None, weight=100):
    return SimpleNamespace(price=None, weight=weight, product_id=product_id or ObjectId(), product_sku="",
                           product_type=product_type, listed_in=tuple(listed_in), tax_class="")


def voucher(code="SAVE", **fields):
    made = Voucher(code=code, name=fields.pop("name", f"{code} offer"), **fields)
    made.save()
    return made


def price(lines, facts, *codes):
    return pricing.price(lines, facts, pricing.PricingContext(codes=codes))


def shares_add_up(priced):
    lines_total = sum(line.discount for line in priced.lines)
    assert lines_total == priced.discount == sum(d["amount"] for d in priced.discounts if d["kind"] != "free_shipping")


def test_33_percent_off_three_lines_shares_add_up_to_the_discount():
    voucher(benefit=Voucher.PERCENT, value=33)
    lines = [{"sku": "A", "qty": 1, "price": 1000}, {"sku": "B", "qty": 3, "price": 333},
             {"sku": "C", "qty": 2, "price": 1}]
    priced = price(lines, {}, "save")
    # 33 % of 2001 = 660.33 -> 660, shares pro rata, the remainder on the last line.
    assert priced.discount == 660
    assert [line.discount for line in priced.lines] == [329, 329, 2]
    shares_add_up(priced)
    assert priced.discounts == [{"code": "SAVE", "name": "SAVE offer", "kind": "percent", "amount": 660}]
    assert priced.total == priced.subtotal - 660 + priced.shipping + priced.tax


def test_fixed_10_dollars_across_lines_of_99_cents_is_capped_at_what_they_cost():
    voucher(benefit=Voucher.FIXED, value=1000)
    lines = [{"sku": s, "qty": 1, "price": 99} for s in "ABC"]
    priced = price(lines, {}, "SAVE")
    assert priced.discount == 297 and [line.net for line in priced.lines] == [0, 0, 0]
    voucher(code="TWO", benefit=Voucher.FIXED, value=200)
    priced = price(lines, {}, "TWO")
    assert [line.discount for line in priced.lines] == [66, 66, 68]
    shares_add_up(priced)


def test_a_category_takes_its_subtree_and_an_exclusion_wins():
    voucher(benefit=Voucher.PERCENT, value=50, include_categories=[str(MUSIC)], exclude_skus=["J2"])
    facts = {"R": fact(listed_in=[ROCK, MUSIC]), "J": fact(listed_in=[JAZZ, MUSIC]),
             "J2": fact(listed_in=[JAZZ, MUSIC]), "F": fact(product_type="Film")}
    lines = [{"sku": s, "qty": 1, "price": 1000} for s in ("R", "J", "J2", "F")]
    priced = price(lines, facts, "SAVE")
    assert [line.discount for line in priced.lines] == [500, 500, 0, 0]


def test_product_type_and_product_ranges():
    film = ObjectId()
    voucher(code="FILMS", benefit=Voucher.FIXED, value=300, include_types=["Film"])
    voucher(code="ONE", benefit=Voucher.FIXED, value=100, include_products=[str(film)])
    facts = {"F": fact(product_type="Film", product_id=film), "G": fact(product_type="Film"), "A": fact()}
    lines = [{"sku": s, "qty": 1, "price": 1000} for s in "FGA"]
    assert [line.discount for line in price(lines, facts, "FILMS").lines] == [150, 150, 0]
    assert [line.discount for line in price(lines, facts, "ONE").lines] == [100, 0, 0]


def test_free_shipping_takes_the_shipping_off(settings):
    settings.SHIPPING_BANDS = [(None, 495)]
    voucher(code="SHIP", benefit=Voucher.FREE_SHIPPING)
    lines = [{"sku": "A", "qty": 1, "price": 1000}]
    before = price(lines, {"A": fact()})
    priced = price(lines, {"A": fact()}, "SHIP")
    assert before.shipping == 495 and priced.shipping == 0 and priced.discount == 0
    assert priced.discounts == [{"code": "SHIP", "name": "SHIP offer", "kind": "free_shipping", "amount": 495}]
    assert priced.total == before.total - 495 - (before.shipping_tax - priced.shipping_tax)


def test_codes_that_cannot_be_used_take_nothing_off():
    now = clock.now()
    voucher(code="OLD", value=10, ends_at=now - datetime.timedelta(days=1))
    voucher(code="LATER", value=10, starts_at=now + datetime.timedelta(days=1))
    voucher(code="BIG", value=10, min_order=5000)
    lines = [{"sku": "A", "qty": 1, "price": 1000}]
    for code in ("OLD", "LATER", "BIG", "NOSUCH"):
        assert price(lines, {}, code).discount == 0
    priced = pricing.price(lines, {})
    for code, reason in (("OLD", EXPIRED), ("LATER", EXPIRED), ("BIG", NOT_APPLICABLE)):
        try:
            check(Voucher.objects.by_codes([code])[code], priced)
        except Refusal as refusal:
            assert refusal.reason == reason and code in str(refusal)
        else:
            raise AssertionError(code)
    Voucher.objects.collection.update_one({"code": "BIG"}, {"$set": {"used": 1, "min_order": 0}})
    try:
        check(Voucher.objects.by_codes(["BIG"])["BIG"], priced)
    except Refusal as refusal:
        assert refusal.reason == USED_UP


def test_a_code_that_is_not_combinable_is_used_alone():
    voucher(code="A10", benefit=Voucher.FIXED, value=100, combinable=True)
    voucher(code="B20", benefit=Voucher.FIXED, value=200, combinable=True)
    voucher(code="ALONE", benefit=Voucher.FIXED, value=300)
    lines = [{"sku": "A", "qty": 1, "price": 1000}]
    assert price(lines, {}, "A10", "B20").discount == 300
    assert price(lines, {}, "A10", "ALONE").discount == 100
    assert price(lines, {}, "ALONE", "A10").discount == 300


def test_a_partial_refund_of_a_discounted_line_gives_back_what_was_paid_for_those_units(settings):
    settings.SHOP_TAX_PERCENT = 0
    voucher(benefit=Voucher.PERCENT, value=33)
    priced = price([{"sku": "A", "qty": 3, "price": 999}, {"sku": "B", "qty": 1, "price": 500}], {}, "SAVE")
    line = priced.lines[0].as_order_line()
    parts = [pricing.refund_of_units(line, 1, before) for before in range(3)]
    assert sum(part["amount"] for part in parts) == priced.lines[0].paid
    assert parts[0]["amount"] == (3 * 999 - line["discount"]) // 3
