"""Gift cards: a payment after tax, debited by one conditional write before any PaymentIntent,
credited back when the payment fails; a gift-card-only order makes no PaymentIntent."""

import datetime

import pytest

from core import clock
from inventory.models import Cart
from orders.checkout import place_order
from orders.exceptions import GiftCardRefused
from orders.models import Order
from orders.payments import PaymentDeclined, StripeProvider
from promotions.models import GiftCard

from tests.support.inventory import add, stock
from tests.support.payments import CREATED, DECLINED, card_token, charges
from tests.support.threads import run_many

ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB"}


def card(balance, code="GIFT-1", days=30):
    made = GiftCard(code=code, balance=balance, expires_at=clock.now() + datetime.timedelta(days=days))
    made.save()
    return made


def carts(count):
    stock("A", count)
    made = []
    for _ in range(count):
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 1)  # 999 cents
        made.append(cart.id)
    return made


def checkout(cart_id, token=None, cards=("gift-1",)):
    try:
        return place_order(cart_id, StripeProvider(), token or card_token(), "Ada", "ada@example.com",
                           address=ADDRESS, gift_cards=cards)
    except GiftCardRefused as refused:
        return refused


def raw(code="GIFT-1"):
    return GiftCard.objects.collection.find_one({"code": code})


def test_a_gift_card_pays_part_and_the_card_the_rest():
    card(500)
    cart_id, = carts(1)
    order = checkout(cart_id)
    assert order.gift_card == 500 and order.gift_cards[0].code == "GIFT-1"
    (amount, _), = charges().values()
    assert amount == order.total - 500
    assert raw()["balance"] == 0 and raw()["holds"] == [] and raw()["history"][-1]["amount"] == -500


def test_a_gift_card_only_order_makes_no_payment_intent():
    card(100_000)
    cart_id, = carts(1)
    order = checkout(cart_id, token="tok_unused")
    assert isinstance(order, Order) and order.status == Order.PAID and order.gift_card == order.total
    assert CREATED == []
    assert raw()["balance"] == 100_000 - order.total


def test_twenty_threads_one_balance_for_one_order_exactly_one_gets_it():
    cart_ids = carts(20)
    card(100_000)
    first = checkout(cart_ids[0], token="tok_unused")
    GiftCard.objects.collection.update_one({"code": "GIFT-1"}, {"$set": {"balance": first.total}})
    results = run_many(lambda n: checkout(cart_ids[n + 1], token="tok_unused"), 19)
    placed = [r for r in results if isinstance(r, Order)]
    assert len(placed) == 1 and sum(isinstance(r, GiftCardRefused) for r in results) == 18
    assert raw()["balance"] == 0 and CREATED == []


def test_a_declined_payment_credits_the_gift_card_back():
    card(500)
    cart_id, = carts(1)
    with pytest.raises(PaymentDeclined):
        checkout(cart_id, token=card_token(DECLINED))
    document = raw()
    assert document["balance"] == 500 and document["holds"] == []
    assert [entry["amount"] for entry in document["history"]] == [-500, 500]
    assert isinstance(checkout(cart_id), Order) and raw()["balance"] == 0


def test_an_expired_card_is_refused_before_any_charge():
    card(500, days=-1)
    cart_id, = carts(1)
    assert isinstance(checkout(cart_id), GiftCardRefused)
    assert CREATED == [] and raw()["balance"] == 500 and Cart.objects.get_cart(cart_id).status == Cart.ACTIVE


def test_a_refund_goes_to_the_card_first_then_back_to_the_gift_card():
    from orders.refunds import refund_order
    from tests.support.payments import refunded_amounts

    card(500)
    cart_id, = carts(1)
    order = checkout(cart_id)
    charged = order.total - 500
    assert refund_order(order.number, charged + 200, "returned", by="staff", request="r1") == charged + 200
    assert list(refunded_amounts().values()) == [charged]
    assert raw()["balance"] == 200 and raw()["history"][-1]["amount"] == 200
    assert refund_order(order.number, None, "rest", by="staff", request="r2") == 300
    assert raw()["balance"] == 500 and list(refunded_amounts().values()) == [charged]


def test_recovery_of_an_interrupted_checkout_credits_the_gift_card(monkeypatch):
    from orders import reconcile

    card(500)
    cart_id, = carts(1)

    def crash(*args, **kwargs):
        raise ConnectionError("worker died")

    monkeypatch.setattr(StripeProvider, "create_intent", crash)
    with pytest.raises(ConnectionError):
        checkout(cart_id)
    assert raw()["balance"] == 0
    monkeypatch.undo()
    assert reconcile.reconcile(StripeProvider(), older_than=0)["voided"] == 1
    assert raw()["balance"] == 500 and raw()["holds"] == []
