"""3-D Secure through the test client: the order is placed only when the server reads the
PaymentIntent as ``succeeded``, never on the browser's word; a shopper who left the bank's page
finds the way back from the status page."""

import json
import re
import urllib.parse
import urllib.request

import pytest

from inventory.models import Inventory
from orders.models import Order, PaymentAttempt
from orders.stripelocal import PUBLISHABLE_KEY, LocalStripe
from tests.support.inventory import assert_invariant
from tests.support.payments import THREE_D_SECURE, charges
from tests.support.shopper import SKU, CheckoutForm, add, session_cart


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)


def bank_answers(client_secret, success):
    """What the local Stripe.js does when the shopper answers the bank's question."""
    intent = client_secret.split("_secret_")[0]
    query = urllib.parse.urlencode({"success": "true" if success else "false"})
    body = json.dumps({"key": PUBLISHABLE_KEY, "client_secret": client_secret}).encode()
    request = urllib.request.Request(f"{LocalStripe().url()}/v1/payment_intents/{intent}/_authenticate?{query}",
                                     data=body, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["status"]


def client_secret(page):
    return re.search(r'data-client-secret="([^"]+)"', page).group(1)


def test_the_browsers_word_is_not_enough_and_the_way_back_is_kept(client, shop):
    add(client, qty=1)
    cart_id = session_cart(client)
    page = client.post("/checkout/", CheckoutForm(THREE_D_SECURE))
    assert page.status_code == 200 and "Confirm your payment with your bank" in page.content.decode()
    secret = client_secret(page.content.decode())
    # The page posts back without the bank having confirmed: nothing is placed.
    again = client.post("/checkout/confirm/")
    assert again.status_code == 200 and client_secret(again.content.decode()) == secret
    assert Order.objects.count() == 0 and charges() == {}
    # The shopper wandered off; the status page leads back to the bank's step.
    status = client.get("/checkout/status/").content.decode()
    assert "finish confirming with your bank" in status
    assert client_secret(client.get("/checkout/confirm/").content.decode()) == secret
    assert bank_answers(secret, success=True) == "succeeded"
    done = client.post("/checkout/confirm/")
    order = Order.objects.get_by_cart(cart_id)
    assert done["Location"] == order.get_absolute_url()
    assert charges() == {order.payment.reference: (order.total, cart_id)}
    assert PaymentAttempt.objects.get(cart_id=cart_id).status == "completed"
    assert_invariant()


def test_a_failed_authentication_gives_the_cart_back(client, shop):
    add(client, qty=1)
    cart_id = session_cart(client)
    secret = client_secret(client.post("/checkout/", CheckoutForm(THREE_D_SECURE)).content.decode())
    bank_answers(secret, success=False)
    page = client.post("/checkout/confirm/", follow=True)
    assert page.redirect_chain[-1][0] == "/checkout/"
    assert "Nothing was charged" in page.content.decode()
    assert Order.objects.count() == 0 and charges() == {} and session_cart(client) == cart_id
    assert PaymentAttempt.objects.get(cart_id=cart_id).status == "declined"
    assert_invariant()
