"""Crashes at every step of checkout, then recovery: never money without an order, never both.

Each test injects a crash (a ``Crash``: a process dying, which no except
clause of the shop catches) at one step of ``place_order``, runs
``reconcile`` (``manage.py reconcile_payments``), and checks that exactly
one of these holds for the cart: its order is placed with its one charge
(units sold), or no money is kept (nothing charged, or the charge refunded)
and no order exists (units held in the shopper's cart or back on the shelf).
"""

import datetime
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from inventory.models import Cart
from orders.checkout import place_order
from orders.exceptions import AttemptFenced, PaymentInProgress
from orders.models import Order, PaymentAttempt
from orders.payments import PaymentError, StripeProvider
from orders.reconcile import checkout_outcome, reconcile, start_background
from core import clock
from tests.support.inventory import assert_invariant, cart_doc, inventory
from tests.support.payments import card_token, charges, refunded



class Crash(BaseException):
    """A process dying mid-operation: no except clause of the shop runs."""


def crash(*args, **kwargs):
    raise Crash()


class AnswerLost(StripeProvider):
    """Stripe takes the money, then the checkout dies before its answer is recorded."""

    def confirm(self, intent_id, idempotency_key):
        super().confirm(intent_id, idempotency_key)
        raise Crash()


def checkout(cart_id, provider=None):
    return place_order(cart_id, provider or StripeProvider(), card_token(), "Ada", "ada@example.com")


def age_checkout(cart_id, seconds=3600):
    """Move the cart's lock and its attempts ``seconds`` into the past: an interrupted checkout."""
    past = clock.now() - datetime.timedelta(seconds=seconds)
    Cart.objects.collection.update_one({"_id": cart_id}, {"$set": {"last_modified": past}})
    PaymentAttempt.objects.collection.update_many({"cart_id": cart_id}, {"$set": {"created_at": past}})


def charged_then_interrupted(cart_id):
    """A checkout of ``cart_id`` that died after the provider took the money, left past the
    recovery delay."""
    with pytest.raises(Crash):
        checkout(cart_id, AnswerLost())
    age_checkout(cart_id)


def kept_charges(cart_id):
    """The charge ids of cart ``cart_id`` that were not refunded."""
    gone = refunded()
    return {charge_id for charge_id, (_, cart) in charges().items() if cart == cart_id and charge_id not in gone}


def assert_settled(cart_id):
    """Exactly one of: the order with its one charge, or no money kept and no order."""
    kept = kept_charges(cart_id)
    order = Order.objects.get_by_cart(cart_id)
    if order is not None:
        assert kept == {order.payment.reference}
        assert cart_doc(cart_id)["status"] == "complete"
        assert inventory("A")["carted"] == [] and inventory("B")["carted"] == []
        assert (inventory("A")["qty"], inventory("B")["qty"]) == (3, 4)
        (attempt,) = PaymentAttempt.objects.filter(status="completed", cart_id=cart_id)
        assert attempt.order_number == order.number and attempt.charge_id == order.payment.reference
    else:
        assert kept == set()
        assert cart_doc(cart_id)["status"] in ("active", "expired")
    assert Order.objects.filter(cart_id=cart_id).count() <= 1
    assert PaymentAttempt.objects.filter(cart_id=cart_id, status__in=["charging", "charged"]).count() == 0
    assert_invariant()
    return order


def crash_and_recover(cart_id, provider=None):
    with pytest.raises(Crash):
        checkout(cart_id, provider)
    assert cart_doc(cart_id)["status"] in ("pending", "complete")
    age_checkout(cart_id)
    reconcile(StripeProvider(), older_than=60)
    assert reconcile(StripeProvider(), older_than=60) == {"finished": 0, "refunded": 0, "voided": 0, "unlocked": 0}
    return assert_settled(cart_id)


# -- a crash at each step ------------------------------------------------------

def test_crash_after_the_cart_is_locked_before_the_attempt_is_recorded(cart_id, monkeypatch):
    monkeypatch.setattr(PaymentAttempt.objects, "begin", crash)
    assert crash_and_recover(cart_id) is None
    assert cart_doc(cart_id)["status"] == "active"  # back to the shopper, units still reserved
    assert (inventory("A")["qty"], inventory("B")["qty"]) == (3, 4)
    assert charges() == {} or all(cart != cart_id for _, cart in charges().values())


def test_crash_after_the_attempt_is_recorded_before_the_intent_is_created(cart_id):
    class DyingProvider(StripeProvider):
        def create_intent(self, *args, **kwargs):
            raise Crash()

    assert crash_and_recover(cart_id, DyingProvider()) is None
    assert cart_doc(cart_id)["status"] == "active"
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert attempt.status == "void" and attempt.recovered


def test_crash_after_stripe_created_the_intent_before_the_ledger_recorded_it(cart_id):
    class DyingProvider(StripeProvider):
        def create_intent(self, *args, **kwargs):
            super().create_intent(*args, **kwargs)
            raise Crash()

    assert crash_and_recover(cart_id, DyingProvider()) is None
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert attempt.status == "void" and attempt.intent_id == ""


def test_crash_while_the_intent_id_is_written_to_the_ledger(cart_id, monkeypatch):
    monkeypatch.setattr(PaymentAttempt.objects, "set_intent", crash)
    assert crash_and_recover(cart_id) is None
    assert cart_doc(cart_id)["status"] == "active"


def test_crash_after_the_intent_is_recorded_before_it_is_confirmed(cart_id):
    class DyingProvider(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            raise Crash()

    assert crash_and_recover(cart_id, DyingProvider()) is None
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert attempt.status == "void" and attempt.intent_id
    # Recovery cancelled the intent at Stripe: it can never be confirmed now.
    assert StripeProvider().retrieve(attempt.intent_id).status == "canceled"


def test_crash_after_the_charge_before_its_answer_is_recorded(cart_id):
    order = crash_and_recover(cart_id, AnswerLost())
    assert order is not None and order.status == "paid"
    assert "reconcile_payments" in order.history[0].note
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert attempt.recovered


def test_crash_after_the_charge_is_recorded_before_the_order(cart_id, monkeypatch):
    monkeypatch.setattr(Order.objects, "insert_order", crash)
    with pytest.raises(Crash):
        checkout(cart_id)
    monkeypatch.undo()
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60)["finished"] == 1
    assert assert_settled(cart_id) is not None


def test_crash_after_the_order_is_written_before_the_cart_completes(cart_id, monkeypatch, mailoutbox):
    monkeypatch.setattr(Cart.objects, "finish_checkout", crash)
    with pytest.raises(Crash):
        checkout(cart_id)
    monkeypatch.undo()
    assert Order.objects.get_by_cart(cart_id) is not None
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60)["finished"] == 1
    order = assert_settled(cart_id)
    assert Order.objects.filter(cart_id=cart_id).count() == 1
    # The confirmation goes out once, when recovery completes the attempt.
    assert order is not None and len(mailoutbox) == 1 and order.number in mailoutbox[0].subject


def test_crash_before_the_reservations_are_released(cart_id, monkeypatch):
    from inventory.models import Inventory

    monkeypatch.setattr(Inventory.objects, "release_sold", crash)
    with pytest.raises(Crash):
        checkout(cart_id)
    monkeypatch.undo()
    assert cart_doc(cart_id)["status"] == "complete" and inventory("A")["carted"] != []
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60)["finished"] == 1
    assert assert_settled(cart_id) is not None


def test_crash_before_the_attempt_is_marked_completed(cart_id, monkeypatch):
    monkeypatch.setattr(PaymentAttempt.objects, "mark_completed", crash)
    with pytest.raises(Crash):
        checkout(cart_id)
    monkeypatch.undo()
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60)["finished"] == 1
    assert assert_settled(cart_id) is not None


def test_a_checkout_that_finishes_is_left_alone_by_recovery(cart_id):
    order = checkout(cart_id)
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60) == {"finished": 0, "refunded": 0, "voided": 0, "unlocked": 0}
    assert assert_settled(cart_id).number == order.number


def test_a_live_checkout_is_left_alone_until_the_recovery_delay(cart_id):
    with pytest.raises(Crash):
        checkout(cart_id, AnswerLost())
    assert reconcile(StripeProvider(), older_than=60) == {"finished": 0, "refunded": 0, "voided": 0, "unlocked": 0}
    assert cart_doc(cart_id)["status"] == "pending"


# -- a stalled checkout meets recovery --------------------------------------------

def test_a_confirm_arriving_after_recovery_cancelled_the_intent_takes_nothing(cart_id):
    class Stalled(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            # The checkout stalls before confirming: it outlives the recovery delay and
            # recovery, finding the intent unpaid, cancels it, voids the attempt and gives
            # the cart back ...
            age_checkout(cart_id)
            assert reconcile(StripeProvider(), older_than=60)["voided"] == 1
            # ... then the confirm reaches Stripe, which refuses a cancelled intent.
            return super().confirm(intent_id, idempotency_key)

    with pytest.raises(PaymentError):
        checkout(cart_id, Stalled())
    assert charges() == {} and kept_charges(cart_id) == set()
    assert assert_settled(cart_id) is None
    assert cart_doc(cart_id)["status"] == "active"


def test_a_checkout_fenced_before_recording_its_intent_never_confirms(cart_id):
    confirmed = []

    class Stalled(StripeProvider):
        def create_intent(self, *args, **kwargs):
            made = super().create_intent(*args, **kwargs)
            age_checkout(cart_id)
            assert reconcile(StripeProvider(), older_than=60)["voided"] == 1
            return made

        def confirm(self, intent_id, idempotency_key):
            confirmed.append(intent_id)
            return super().confirm(intent_id, idempotency_key)

    with pytest.raises(AttemptFenced):
        checkout(cart_id, Stalled())
    assert confirmed == [] and charges() == {}
    assert assert_settled(cart_id) is None


def test_a_charge_recovery_found_first_is_finished_once(cart_id):
    class Stalled(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            intent = super().confirm(intent_id, idempotency_key)
            # Recovery finds the intent succeeded and places the order while the checkout waits.
            age_checkout(cart_id)
            assert reconcile(StripeProvider(), older_than=60)["finished"] == 1
            return intent

    with pytest.raises(PaymentInProgress):
        checkout(cart_id, Stalled())
    assert assert_settled(cart_id) is not None
    assert refunded() == set()


def test_concurrent_recoveries_finish_one_order_and_refund_nothing(cart_id):
    charged_then_interrupted(cart_id)
    start = threading.Barrier(4)
    reports, errors = [], []

    def run():
        try:
            start.wait()
            reports.append(reconcile(StripeProvider(), older_than=60))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(report["finished"] for report in reports) == 1
    assert sum(report["refunded"] for report in reports) == 0
    assert assert_settled(cart_id) is not None


def test_a_charge_whose_cart_is_no_longer_held_is_refunded(cart_id, monkeypatch):
    with pytest.raises(Crash):
        checkout(cart_id, AnswerLost())
    # A cart taken from its payment by hand (an old shop's expiry, a staff edit).
    Cart.objects.collection.update_one({"_id": cart_id}, {"$set": {"status": "active"}, "$unset": {"payment_key": ""}})
    age_checkout(cart_id)
    assert reconcile(StripeProvider(), older_than=60)["refunded"] == 1
    assert assert_settled(cart_id) is None
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert attempt.status == "refunded" and attempt.recovered


# -- the provider, the command, the audit, the background ---------------------------

def test_an_intent_is_confirmed_once_however_often_it_is_asked():
    """localstripe ignores Idempotency-Key: a second confirm of a paid intent is refused by its
    status, and the ledger never asks twice (only the checkout that recorded it confirms)."""
    from orders.payments import shop_id

    provider = StripeProvider()
    intent, card = provider.create_intent(500, card_token(), "Ada", "ada@example.com",
                                          {"shop": shop_id(), "cart": "cart-1"}, "key-1")
    assert intent.status == "requires_confirmation" and card == {"brand": "Visa", "last4": "4242"}
    assert provider.confirm(intent.id, "key-1").status == "succeeded"
    with pytest.raises(PaymentError):
        provider.confirm(intent.id, "key-1")
    assert charges() == {intent.id: (500, "cart-1")}
    assert provider.refund(intent.id, 200)["amount"] == 200
    assert provider.refunded_amount(intent.id) == 200 and refunded() == set()
    provider.refund(intent.id, 300)
    assert refunded() == {intent.id}
    assert provider.cancel(intent.id).status == "succeeded"  # a paid intent cannot be cancelled


def test_check_inventory_reports_a_charge_without_an_order_until_reconciled(cart_id, capsys):
    charged_then_interrupted(cart_id)
    with pytest.raises(CommandError, match="charge\\(s\\) without an order"):
        call_command("check_inventory")
    call_command("reconcile_payments")
    assert "1 order(s) finished" in capsys.readouterr().out
    call_command("check_inventory")
    assert "every charge has its order" in capsys.readouterr().out


def test_the_serving_processes_reconcile_by_themselves(cart_id):
    charged_then_interrupted(cart_id)
    thread = start_background(0.2)
    try:
        deadline = clock.now() + datetime.timedelta(seconds=20)
        while Order.objects.get_by_cart(cart_id) is None and clock.now() < deadline:
            threading.Event().wait(0.1)
    finally:
        thread.stop()
        thread.join(20)
    assert thread.daemon and not thread.is_alive()
    assert assert_settled(cart_id) is not None


def test_the_shoppers_status_page_settles_a_checkout_pending_too_long(cart_id):
    with pytest.raises(Crash):
        checkout(cart_id, AnswerLost())
    assert checkout_outcome(cart_id, StripeProvider())[0] == "pending"
    age_checkout(cart_id)
    outcome, order = checkout_outcome(cart_id, StripeProvider())
    assert outcome == "placed" and assert_settled(cart_id).number == order.number


def test_staff_see_the_attempts_recovery_settled_in_the_admin(cart_id, admin_client):
    charged_then_interrupted(cart_id)
    reconcile(StripeProvider(), older_than=60)
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    page = admin_client.get("/admin/orders/paymentattempt/?recovered__exact=1").content.decode()
    assert attempt.key in page and attempt.order_number in page and "reconcile_payments" in page
    assert admin_client.get(f"/admin/orders/paymentattempt/{attempt.key}/change/").status_code == 200
    assert admin_client.get("/admin/orders/paymentattempt/add/").status_code == 403


def test_reconcile_payments_refuses_a_negative_delay_and_changes_nothing(cart_id):
    charged_then_interrupted(cart_id)
    with pytest.raises(CommandError, match="--older-than must be 0 or more seconds"):
        call_command("reconcile_payments", older_than=-1)
    assert cart_doc(cart_id)["status"] == "pending" and Order.objects.get_by_cart(cart_id) is None
    assert PaymentAttempt.objects.get(cart_id=cart_id).status == "charging"


def test_a_shopper_who_never_finishes_3d_secure_gets_the_cart_back_after_the_action_timeout(cart_id, settings):
    from orders.exceptions import PaymentActionRequired
    from tests.support.payments import THREE_D_SECURE

    with pytest.raises(PaymentActionRequired):
        place_order(cart_id, StripeProvider(), card_token(THREE_D_SECURE), "Ada", "ada@example.com")
    age_checkout(cart_id, seconds=120)
    assert reconcile(StripeProvider(), older_than=60)["voided"] == 0  # still in the shopper's hands
    assert cart_doc(cart_id)["status"] == "pending"
    settings.PAYMENT_ACTION_TIMEOUT = 60
    assert reconcile(StripeProvider(), older_than=60)["voided"] == 1
    assert assert_settled(cart_id) is None and cart_doc(cart_id)["status"] == "active"
