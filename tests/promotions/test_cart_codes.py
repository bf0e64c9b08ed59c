"""The cart page's code form: each refusal says which, a code applies to the cart and the
checkout, a code used up between the page and the payment is refused before any charge,
and guessing is rate limited."""

import datetime

import pytest

from core import clock
from inventory.models import Inventory
from orders.models import Order
from promotions.models import Voucher

from tests.support.payments import CREATED
from tests.support.shopper import CARD, SKU, add


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)


def voucher(code, **fields):
    made = Voucher(code=code, name=fields.pop("name", "Ten off"), benefit=fields.pop("benefit", Voucher.FIXED),
                   value=fields.pop("value", 100), **fields)
    made.save()
    return made


def apply(client, code):
    return client.post("/cart/code/", {"code": code}, follow=True).content.decode()


@pytest.mark.parametrize("code, fields, says", [
    ("NOSUCH", None, "There is no discount code NOSUCH"),
    ("OLD", {"ends_at": "past"}, "is not valid now"),
    ("GONE", {"used": 1}, "has been used up"),
    ("BIG", {"min_order": 10_000_000}, "does not apply to this cart (it needs a subtotal of $100,000.00)"),
    ("FILMS", {"include_types": ["Film"]}, "does not apply to this cart (none of its items"),
])
def test_a_refused_code_says_why_and_is_not_kept(client, shop, code, fields, says):
    if fields is not None:
        if fields.get("ends_at") == "past":
            fields["ends_at"] = clock.now() - datetime.timedelta(days=1)
        voucher(code, **fields)
    add(client)
    page = apply(client, code.lower())
    assert says in page
    assert client.session.get("discount_codes") is None


def test_a_code_applies_on_the_cart_and_the_checkout_and_the_order_keeps_it(client, shop):
    voucher("TEN", name="Ten percent", benefit=Voucher.PERCENT, value=10)
    add(client, qty=2)
    page = apply(client, " ten ")
    assert "Discount code TEN applied: Ten percent." in page and "TEN: Ten percent" in page
    figures = client.get("/checkout/").context["totals"]
    assert figures.discount == (figures.subtotal * 10 + 50) // 100 > 0
    response = client.post("/checkout/", CARD)
    order = Order.objects.get_by_number(response["Location"].split("/")[-2])
    assert order.discount == figures.discount and order.discounts[0].code == "TEN"
    assert sum(line.discount for line in order.lines) == order.discount
    assert Voucher.objects.collection.find_one({"code": "TEN"})["used"] == 1
    assert client.session.get("discount_codes") is None  # used: the next cart starts without
    from django.core import mail

    assert f"Ten percent (TEN): -${order.discount // 100}." in mail.outbox[-1].body
    assert "Ten percent (TEN)" in client.get(order.get_absolute_url()).content.decode()


def test_a_code_used_up_after_the_page_is_refused_before_any_charge(client, shop):
    voucher("ONCE")
    add(client)
    apply(client, "ONCE")
    Voucher.objects.collection.update_one({"code": "ONCE"}, {"$set": {"used": 1}})  # another shopper's
    response = client.post("/checkout/", CARD, follow=True)
    assert "ONCE has just been used up" in response.content.decode()
    assert CREATED == [] and Order.objects.count() == 0
    assert client.session.get("discount_codes") == []


def test_a_second_code_that_is_not_combinable_is_refused(client, shop):
    voucher("A", combinable=True)
    voucher("B")
    add(client)
    apply(client, "A")
    assert "cannot be combined" in apply(client, "B")
    assert client.session["discount_codes"] == ["A"]


def test_guessing_codes_is_rate_limited(client, shop, settings):
    settings.SHOP_RATE_LIMITS = {**settings.SHOP_RATE_LIMITS, "discount_code": "3/m"}
    add(client)
    for guess in ("AAA", "BBB", "CCC"):
        assert client.post("/cart/code/", {"code": guess}).status_code == 302
    assert client.post("/cart/code/", {"code": "DDD"}).status_code == 429


def test_removing_a_code(client, shop):
    voucher("TEN")
    add(client)
    apply(client, "TEN")
    client.post("/cart/code/remove/", {"code": "ten"})
    assert client.session["discount_codes"] == []


def test_a_gift_card_on_the_cart_pays_at_checkout_and_the_card_the_rest(client, shop):
    from promotions.models import GiftCard
    from tests.support.payments import charges

    GiftCard(code="GC-1", balance=300, expires_at=clock.now() + datetime.timedelta(days=9)).save()
    add(client)
    assert "There is no gift card GC-2" in client.post("/cart/gift-card/", {"code": "gc-2"}, follow=True).content.decode()
    page = client.post("/cart/gift-card/", {"code": "gc-1"}, follow=True).content.decode()
    assert "Gift card GC-1 added: $3.00" in page and "GC-1 pays $3.00" in page
    figures = client.get("/checkout/").context["totals"]
    assert figures.gift_card == 300 and figures.charged == figures.total - 300
    response = client.post("/checkout/", CARD)
    order = Order.objects.get_by_number(response["Location"].split("/")[-2])
    assert order.gift_card == 300 and [amount for amount, _ in charges().values()] == [order.total - 300]
    assert "Paid by gift card GC-1" in client.get(order.get_absolute_url()).content.decode()
