"""Stripe's webhook: signatures, replays, other shops' and unknown events, each handled type, and an
order placed by the webhook alone (delivered by the local Stripe) when the browser never returns."""

import hashlib
import hmac
import json
import os
import time

import pytest

from orders.checkout import place_order
from orders.models import Order, PaymentAttempt, PaymentEvent
from orders.payments import StripeProvider, shop_id
from orders.stripelocal import LocalStripe
from tests.orders.test_payment_recovery import AnswerLost, Crash, assert_settled
from tests.support.inventory import cart_doc
from tests.support.payments import card_token, charges

URL = "/stripe/webhook/"


def signed(event, secret=None, at=None):
    """``(body, Stripe-Signature header)`` as Stripe signs an event: HMAC-SHA256 of "t.body"
    (``secret`` default: the local Stripe's own)."""
    secret = LocalStripe().webhook_secret() if secret is None else secret
    body = json.dumps(event)
    at = int(time.time()) if at is None else at
    signature = hmac.new(secret.encode(), f"{at}.{body}".encode(), hashlib.sha256).hexdigest()
    return body, f"t={at},v1={signature}"


def post(client, event, **kwargs):
    body, header = signed(event, **kwargs)
    return client.post(URL, body, content_type="application/json", HTTP_STRIPE_SIGNATURE=header)


def event_for(intent_id, kind="payment_intent.succeeded", event_id=None, **metadata):
    intent = StripeProvider().retrieve(intent_id)
    obj = {"id": intent.id, "object": "payment_intent", "status": intent.status, "amount": intent.amount,
           "metadata": {**intent.metadata, **metadata}}
    return {"id": event_id or f"evt_{intent_id}_{kind}", "object": "event", "type": kind, "data": {"object": obj}}


@pytest.fixture
def browser_never_came_back(cart_id):
    """Stripe took the money; the checkout died before recording it (the shopper's page is gone)."""
    with pytest.raises(Crash):
        place_order(cart_id, AnswerLost(), card_token(), "Ada", "ada@example.com")
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    return attempt.intent_id


def test_payment_intent_succeeded_places_the_order_once_and_a_replay_changes_nothing(
        client, cart_id, browser_never_came_back, mailoutbox):
    event = event_for(browser_never_came_back)
    response = post(client, event)
    assert response.status_code == 200
    order = assert_settled(cart_id)
    assert order is not None and order.payment.reference == browser_never_came_back
    assert len(mailoutbox) == 1
    replay = post(client, event)
    assert replay.status_code == 200 and b"Already applied" in replay.content
    assert Order.objects.count() == 1 and PaymentEvent.objects.count() == 1 and len(mailoutbox) == 1


@pytest.mark.parametrize("header", [None, "", "t=1,v1=00", "garbage"])
def test_a_bad_or_missing_signature_is_a_400_and_changes_nothing(client, cart_id, browser_never_came_back, header):
    body = json.dumps(event_for(browser_never_came_back))
    extra = {} if header is None else {"HTTP_STRIPE_SIGNATURE": header}
    response = client.post(URL, body, content_type="application/json", **extra)
    assert response.status_code == 400
    assert Order.objects.count() == 0 and PaymentEvent.objects.count() == 0
    assert cart_doc(cart_id)["status"] == "pending"


def test_a_signature_with_another_secret_or_too_old_is_a_400(client, cart_id, browser_never_came_back):
    event = event_for(browser_never_came_back)
    assert post(client, event, secret="whsec_someone_else").status_code == 400
    assert post(client, event, at=int(time.time()) - 3600).status_code == 400  # a replay from long ago
    assert Order.objects.count() == 0 and PaymentEvent.objects.count() == 0


def test_an_unknown_type_or_another_shops_event_is_a_200_and_changes_nothing(client, cart_id, browser_never_came_back):
    unknown = event_for(browser_never_came_back, kind="customer.created")
    assert post(client, unknown).status_code == 200
    foreign = event_for(browser_never_came_back, event_id="evt_foreign", shop="another-shop")
    assert post(client, foreign).status_code == 200
    assert Order.objects.count() == 0 and PaymentEvent.objects.count() == 0
    assert cart_doc(cart_id)["status"] == "pending"


def test_payment_failed_releases_the_attempt(client, cart_id):
    class DiesBeforeConfirming(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            raise Crash()

    with pytest.raises(Crash):
        place_order(cart_id, DiesBeforeConfirming(), card_token(), "Ada", "ada@example.com")
    (attempt,) = PaymentAttempt.objects.filter(cart_id=cart_id)
    assert post(client, event_for(attempt.intent_id, kind="payment_intent.payment_failed")).status_code == 200
    assert PaymentAttempt.objects.get(cart_id=cart_id).status == "void"
    assert cart_doc(cart_id)["status"] == "active" and charges() == {}
    assert StripeProvider().retrieve(attempt.intent_id).status == "canceled"


def test_charge_refunded_records_a_refund_made_in_stripes_dashboard_once(client, cart_id):
    order = place_order(cart_id, StripeProvider(), card_token(), "Ada", "ada@example.com")
    refund = StripeProvider().refund(order.payment.reference, 300)  # staff refund in Stripe's dashboard
    charge = {"id": "ch_x", "object": "charge", "payment_intent": order.payment.reference,
              "metadata": {"shop": shop_id()}, "refunds": {"data": [{"id": refund["id"], "amount": 300}]}}
    event = {"id": "evt_refund_1", "type": "charge.refunded", "data": {"object": charge}}
    assert post(client, event).status_code == 200
    assert post(client, {**event, "id": "evt_refund_1_resent"}).status_code == 200  # Stripe sent it twice
    placed = Order.objects.get_by_number(order.number)
    assert placed.refunded == 300 and [(r.refund_id, r.amount, r.by) for r in placed.refunds] == [
        (refund["id"], 300, "stripe")]


def test_the_local_stripe_delivers_the_event_that_places_the_order(live_server, cart_id):
    """The whole path: localstripe signs and posts ``payment_intent.succeeded`` to the shop's
    endpoint (registered as the shop registers it at start), and the order is placed although
    the checkout died before recording the payment."""
    # One registration per test process (a later run replaces it): the machine's one localstripe
    # posts every event to every endpoint, and each shop ignores the events of others.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    LocalStripe().register_webhook(f"tests-{worker}", f"{live_server.url}{URL}", LocalStripe().webhook_secret())
    with pytest.raises(Crash):
        place_order(cart_id, AnswerLost(), card_token(), "Ada", "ada@example.com")
    deadline = time.monotonic() + 20
    while Order.objects.get_by_cart(cart_id) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    order = assert_settled(cart_id)
    assert order is not None
    assert PaymentEvent.objects.filter(type="payment_intent.succeeded").count() == 1
