"""The shopper is told the truth after a crash or a double submit: never "Your cart is empty"
for a cart whose payment was taken, and the losing tabs are sent to the order that was placed."""

import threading

import pytest
from django.test import Client

from inventory.models import Inventory
from orders.models import Order
from orders.payments import StripeProvider
from orders.reconcile import reconcile
from tests.orders.test_payment_recovery import age_checkout
from tests.support.inventory import assert_invariant
from tests.support.payments import charges
from tests.support.shopper import CARD, SKU, add, session_cart


class AnswerLostProvider(StripeProvider):
    """Takes the money, then its answer is lost (the connection to the provider drops)."""

    def confirm(self, intent_id, idempotency_key):
        super().confirm(intent_id, idempotency_key)
        raise ConnectionError("connection to the payment provider lost")


class GatedProvider(StripeProvider):
    """Charges only once ``gate`` is set (a slow bank), telling ``inside`` it is waiting."""

    inside = threading.Event()
    gate = threading.Event()

    def confirm(self, intent_id, idempotency_key):
        self.inside.set()
        assert self.gate.wait(30)
        return super().confirm(intent_id, idempotency_key)


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)


def test_a_shopper_whose_checkout_crashed_after_the_charge_is_shown_the_order(client, shop, settings):
    settings.PAYMENT_PROVIDER = "tests.orders.test_checkout_truth.AnswerLostProvider"
    add(client, qty=2)
    cart_id = session_cart(client)
    response = client.post("/checkout/", CARD)
    assert response.status_code == 302 and response["Location"] == "/checkout/status/"
    waiting = client.get("/checkout/status/")
    assert waiting.status_code == 200 and "Confirming your payment" in waiting.content.decode()
    assert 'http-equiv="refresh"' in waiting.content.decode()
    cart_page = client.get("/cart/").content.decode()
    assert "Your payment is being confirmed" in cart_page and "/checkout/status/" in cart_page
    # Recovery runs (cron, a serving process, or this page once the delay is past).
    age_checkout(cart_id)
    settings.PAYMENT_PROVIDER = "orders.payments.StripeProvider"
    done = client.get("/checkout/status/", follow=True)
    order = Order.objects.get_by_cart(cart_id)
    assert order is not None and done.redirect_chain[-1][0] == order.get_absolute_url()
    assert f"order {order.number} is placed, charged once" in done.content.decode()
    assert len(charges()) == 1 and session_cart(client) is None
    assert_invariant()


def test_a_checkout_that_never_charged_sends_the_shopper_back_to_the_cart(client, shop, settings):
    add(client, qty=1)
    cart_id = session_cart(client)
    settings.PAYMENT_PROVIDER = "tests.orders.test_checkout_truth.NeverAnswersProvider"
    assert client.post("/checkout/", CARD)["Location"] == "/checkout/status/"
    age_checkout(cart_id)
    settings.PAYMENT_PROVIDER = "orders.payments.StripeProvider"
    page = client.get("/checkout/status/", follow=True)
    assert page.redirect_chain[-1][0] == "/cart/"
    assert "nothing was charged" in page.content.decode()
    assert session_cart(client) == cart_id and charges() == {}
    assert client.post("/checkout/", CARD).status_code == 302 and Order.objects.count() == 1


class NeverAnswersProvider(StripeProvider):
    """The provider is unreachable: nothing is charged, the checkout gets an error."""

    def confirm(self, intent_id, idempotency_key):
        raise TimeoutError("the payment provider did not answer")


def test_losing_tabs_of_a_double_submit_are_sent_to_the_order_placed(client, shop, settings):
    settings.PAYMENT_PROVIDER = "tests.orders.test_checkout_truth.GatedProvider"
    GatedProvider.inside.clear()
    GatedProvider.gate.clear()
    add(client, qty=2)
    tabs = []
    for _ in range(3):
        tab = Client()
        tab.cookies.load({name: morsel.value for name, morsel in client.cookies.items()})
        tabs.append(tab)
    winner = {}
    paying = threading.Thread(target=lambda: winner.setdefault("response", client.post("/checkout/", CARD)))
    paying.start()
    assert GatedProvider.inside.wait(30)
    # The other tabs press Pay while the first tab's payment is being taken.
    for tab in tabs:
        response = tab.post("/checkout/", CARD)
        assert response["Location"] == "/checkout/status/"
        assert "Confirming your payment" in tab.get("/checkout/status/").content.decode()
    GatedProvider.gate.set()
    paying.join(30)
    order_url = winner["response"]["Location"]
    for tab in tabs:
        page = tab.get("/checkout/status/", follow=True)
        assert page.redirect_chain[-1][0] == order_url
        assert "charged once" in page.content.decode()
    assert Order.objects.count() == 1 and len(charges()) == 1
    assert reconcile(StripeProvider(), older_than=0) == {"finished": 0, "refunded": 0, "voided": 0, "unlocked": 0}
    assert_invariant()
