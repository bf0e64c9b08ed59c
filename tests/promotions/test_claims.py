"""The claim of a code's use at checkout: one conditional write, before any PaymentIntent.

Threads check out many carts with one code at once: exactly ``limit`` orders get it,
the others are refused before the provider is called; a declined payment and a
checkout voided by recovery give the use back; a paid order keeps it.
"""

import pytest

from inventory.models import Cart
from orders import reconcile
from orders.checkout import place_order
from orders.exceptions import CodeRefused
from orders.models import Order, PaymentAttempt
from orders.payments import PaymentDeclined, StripeProvider
from promotions.models import Voucher

from tests.support.inventory import add, stock
from tests.support.payments import CREATED, DECLINED, card_token, charges
from tests.support.threads import run_many

ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB"}


def code(limit=1, **fields):
    made = Voucher(code="RACE", name="Race offer", benefit=Voucher.FIXED, value=100, limit=limit, **fields)
    made.save()
    return made


def carts(count):
    stock("A", count)
    made = []
    for _ in range(count):
        cart = Cart.objects.create_cart()
        add(cart.id, "A", 1)
        made.append(cart.id)
    return made


def checkout(cart_id, email="ada@example.com", token=None, user_id=""):
    try:
        return place_order(cart_id, StripeProvider(), token or card_token(), "Ada", email, address=ADDRESS,
                           codes=("race",), user_id=user_id)
    except CodeRefused as refused:
        return refused


def raw():
    return Voucher.objects.collection.find_one({"code": "RACE"})


@pytest.mark.parametrize("limit", [1, 5])
def test_twenty_threads_one_code_exactly_limit_orders_get_it_the_others_are_refused_before_any_charge(limit):
    code(limit=limit)
    ids = carts(20)
    tokens = [card_token() for _ in ids]
    results = run_many(lambda n: checkout(ids[n], email=f"s{n}@example.com", token=tokens[n]), 20)
    placed = [r for r in results if isinstance(r, Order)]
    refused = [r for r in results if isinstance(r, CodeRefused)]
    assert len(placed) == limit and len(refused) == 20 - limit
    assert all(order.discount == 100 and order.discounts[0].code == "RACE" for order in placed)
    assert len(CREATED) == limit and len(charges()) == limit  # no PaymentIntent for the refused
    document = raw()
    assert document["used"] == limit and len(document["claims"]) == limit
    assert {c["cart"] for c in document["claims"]} == {order.cart_id for order in placed}
    for cart_id in ids:  # the refused carts are the shoppers' again
        if cart_id not in {order.cart_id for order in placed}:
            assert Cart.objects.get_cart(cart_id).status == Cart.ACTIVE


def test_a_declined_payment_gives_the_use_back_and_the_code_works_again():
    code()
    cart_id, = carts(1)
    with pytest.raises(PaymentDeclined):
        checkout(cart_id, token=card_token(DECLINED))
    assert raw()["used"] == 0 and raw()["claims"] == []
    order = checkout(cart_id)
    assert isinstance(order, Order) and order.discount == 100 and raw()["used"] == 1


def test_once_per_customer_by_email_across_carts():
    code(limit=10, once_per_customer=True)
    first, second = carts(2)
    assert isinstance(checkout(first, email="Ada@Example.com"), Order)
    refused = checkout(second, email="ada@example.com")
    assert isinstance(refused, CodeRefused) and raw()["used"] == 1
    assert isinstance(checkout(second, email="bob@example.com"), Order)


def test_recovery_voiding_an_interrupted_attempt_releases_its_claim(monkeypatch):
    """A crash after the claim and the attempt's record, before any intent: reconcile_payments
    voids the attempt, unlocks the cart and gives the code's use back."""
    code()
    cart_id, = carts(1)

    def crash(*args, **kwargs):
        raise ConnectionError("worker died")

    monkeypatch.setattr(StripeProvider, "create_intent", crash)
    with pytest.raises(ConnectionError):
        checkout(cart_id)
    assert raw()["used"] == 1
    monkeypatch.undo()
    report = reconcile.reconcile(StripeProvider(), older_than=0)
    assert report["voided"] == 1
    assert raw()["used"] == 0 and raw()["claims"] == []
    assert isinstance(checkout(cart_id), Order) and raw()["used"] == 1


def test_recovery_of_a_checkout_that_died_between_claim_and_ledger_releases_the_claim(monkeypatch):
    code()
    cart_id, = carts(1)

    def crash(*args, **kwargs):
        raise ConnectionError("worker died")

    monkeypatch.setattr(PaymentAttempt.objects, "begin", crash)
    with pytest.raises(ConnectionError):
        checkout(cart_id)
    # The checkout's own handler released it; simulate a hard crash by claiming again for the
    # key the cart is still locked with (as if the process died right after the claim).
    assert raw()["used"] == 0
    monkeypatch.undo()
    from orders.managers.ledger import new_key

    key = new_key()
    assert Cart.objects.lock_for_checkout(cart_id, key) is not None
    assert Voucher.objects.claim(raw()["_id"], 1, cart_id, key, "", "ada@example.com", False)
    reconcile.reconcile(StripeProvider(), older_than=0)
    assert raw()["used"] == 0 and Cart.objects.get_cart(cart_id).status == Cart.ACTIVE


def test_a_second_release_changes_nothing():
    voucher = code(limit=3)
    assert Voucher.objects.claim(voucher.pk, 3, "c1", "k1", "", "a@x", False)
    assert Voucher.objects.claim(voucher.pk, 3, "c2", "k2", "", "b@x", False)
    assert not Voucher.objects.claim(voucher.pk, 3, "c2", "k3", "", "b@x", False)  # one use per cart
    assert Voucher.objects.release("k1") == 1
    assert Voucher.objects.release("k1") == 0
    assert raw()["used"] == 1 and [c["key"] for c in raw()["claims"]] == ["k2"]
