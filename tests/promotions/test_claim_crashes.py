"""A checkout holding a discount code's use and a gift-card debit dies at each step between the
claim, the PaymentIntent, its confirmation and the order (the process gone: nothing after the
step runs, not even the checkout's own handlers). Afterwards ``reconcile_payments`` leaves every
claim and every debit with exactly one paid order or given back, the audit
(``orders.claims.audit``, run by ``check_inventory``) finds nothing, and every charge has its
order or its refund."""

import datetime

import pytest

from core import clock
from inventory.models import Cart
from orders import reconcile
from orders.audit import charges_without_order
from orders.checkout import place_order
from orders.claims import audit
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from promotions.models import GiftCard, Voucher

from tests.support.inventory import add, stock
from tests.support.payments import card_token

ADDRESS = {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "", "city": "London",
           "postcode": "SW1Y 4JH", "country": "GB"}


class Died(BaseException):
    """The process ended here: no ``except Exception`` of the checkout runs."""


# (where, method): the step after which the process dies.
STEPS = [
    (lambda: Voucher.objects, "claim"),
    (lambda: GiftCard.objects, "debit"),
    (lambda: PaymentAttempt.objects, "begin"),
    (lambda: StripeProvider, "create_intent"),
    (lambda: PaymentAttempt.objects, "set_intent"),
    (lambda: StripeProvider, "confirm"),
    (lambda: PaymentAttempt.objects, "mark_charged"),
    (lambda: Order.objects, "insert_order"),
    (lambda: GiftCard.objects, "settle"),
    (lambda: PaymentAttempt.objects, "mark_completed"),
]


def after(where, name, monkeypatch):
    """Make ``where.name`` do its work, then kill the process."""
    target = where()
    done = getattr(target, name)
    if isinstance(target, type):
        def dying(self, *args, **kwargs):
            done(self, *args, **kwargs)
            raise Died(name)
    else:
        def dying(*args, **kwargs):
            done(*args, **kwargs)
            raise Died(name)
    monkeypatch.setattr(target, name, dying)


def checkout(cart_id):
    return place_order(cart_id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=ADDRESS,
                       codes=("race",), gift_cards=("gift-1",))


@pytest.mark.parametrize("where,name", STEPS, ids=[name for _, name in STEPS])
def test_a_crash_at_each_step_leaves_every_claim_with_one_paid_order_or_released(where, name, monkeypatch):
    Voucher(code="RACE", name="Race offer", benefit=Voucher.FIXED, value=100, limit=1).save()
    GiftCard(code="GIFT-1", balance=500, expires_at=clock.now() + datetime.timedelta(days=30)).save()
    stock("A", 1)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 1)
    after(where, name, monkeypatch)
    with pytest.raises(Died):
        checkout(cart.id)
    monkeypatch.undo()
    reconcile.reconcile(StripeProvider(), older_than=0)

    assert audit(older_than=0) == [] and charges_without_order() == []
    code = Voucher.objects.collection.find_one({"code": "RACE"})
    gift = GiftCard.objects.collection.find_one({"code": "GIFT-1"})
    order = Order.objects.get_by_cart(cart.id)
    assert gift["holds"] == []
    if order is not None:  # charged before the crash: recovery placed the order, which keeps both
        assert [d.code for d in order.discounts] == ["RACE"] and order.gift_card == 500
        assert code["used"] == 1 and [c["cart"] for c in code["claims"]] == [cart.id]
        assert gift["balance"] == 0
    else:  # nothing charged: both given back, and the cart checks out again with them
        assert code["used"] == 0 and code["claims"] == [] and gift["balance"] == 500
        assert Cart.objects.get_cart(cart.id).status == Cart.ACTIVE
        placed = checkout(cart.id)
        assert placed.discount == 100 and placed.gift_card == 500
    assert audit(older_than=0) == []


def test_the_audit_names_a_claim_left_without_an_order_and_check_inventory_fails(settings):
    from django.core.management import CommandError, call_command

    voucher = Voucher(code="LEFT", name="Left", benefit=Voucher.FIXED, value=100, limit=2)
    voucher.save()
    assert Voucher.objects.claim(voucher.pk, 2, "cart-gone", "key-gone", "", "a@example.com", False)
    assert audit(older_than=3600) == []  # young and unrecorded: a checkout may still be running
    (line,) = audit(older_than=0)
    assert "code LEFT" in line and "cart-gone" in line
    settings.PAYMENT_RECOVERY_AFTER = 0
    with pytest.raises(CommandError, match="1 claim"):
        call_command("check_inventory", "--quiet")
