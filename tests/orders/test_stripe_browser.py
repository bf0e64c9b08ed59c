"""Checkout with Stripe in headless Chromium, against the local Stripe (localstripe and its Stripe.js).

The shopper types a test card into Stripe's card field; the page sends it to
Stripe (here: the local one) and posts only the token to the shop. Tested: the
order page is reached, no request to the shop carries the card number or the
CVC, a declined card, 3-D Secure completed and failed; no CSP report anywhere.
"""

import urllib.parse

import pytest

from inventory.models import Inventory
from orders.models import Order, PaymentAttempt
from tests.support.browser import click_and_wait, csp_reports, sent_requests, type_card
from tests.support.inventory import assert_invariant
from tests.support.payments import DECLINED, THREE_D_SECURE, charges

NUMBER, CVC = "4242424242424242", "987"


def start_checkout(browser, base):
    from selenium.webdriver.support.ui import Select

    Inventory.objects.set_stock("CHK-0001", 5)
    browser.get(f"{base}/p/CHK-0001/")
    click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))
    browser.get(f"{base}/checkout/")
    for name, value in {"ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
                        "ship-postcode": "sw1y 4jh", "name": "Ada Lovelace", "email": "ada@example.com"}.items():
        browser.find_element("name", name).send_keys(value)
    Select(browser.find_element("name", "ship-country")).select_by_value("GB")


def pay(browser):
    click_and_wait(browser, browser.find_element("css selector", "form.checkout button[type=submit]"))


def wait_for_3d_secure(browser, answer):
    """Answer the bank's 3-D Secure question (the fake Stripe.js's dialog) and wait for the page
    to post back to the shop."""
    from selenium.webdriver.support.ui import WebDriverWait

    assert browser.title.startswith("Confirm your payment with your bank")
    page = browser.find_element("tag name", "h1")
    button = WebDriverWait(browser, 20).until(
        lambda driver: [b for b in driver.find_elements("tag name", "button") if b.text == answer])[0]
    from selenium.webdriver.support import expected_conditions

    from selenium.common.exceptions import WebDriverException

    button.click()
    # chromedriver may answer 'unhandled inspector error' while the page unloads (seen in CI):
    # keep waiting, as click_and_wait does.
    WebDriverWait(browser, 30, ignored_exceptions=(WebDriverException,)).until(
        expected_conditions.staleness_of(page))


@pytest.fixture
def shop(chinook, live_server):
    return live_server.url


def test_a_test_card_typed_into_stripes_field_reaches_the_order_page(browser, shop):
    start_checkout(browser, shop)
    type_card(browser, NUMBER, cvc=CVC)
    sent_requests(browser)  # only what paying sends, from here
    pay(browser)
    order = Order.objects.get()
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert "Visa ending 4242" in browser.page_source
    assert charges() == {order.payment.reference: (order.total, order.cart_id)}
    to_shop = [request for request in sent_requests(browser) if request[1].startswith(shop)]
    assert any(method == "POST" and url == f"{shop}/checkout/" for method, url, _ in to_shop)
    for method, url, body in to_shop:
        fields = urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query) + urllib.parse.parse_qsl(body)
        assert not any(NUMBER in value.replace(" ", "") or value == CVC for _, value in fields), (url, fields)
        assert NUMBER not in url and NUMBER not in body
    assert csp_reports(browser) == []
    assert_invariant()


def test_the_card_goes_to_stripe_and_only_the_token_to_the_shop(browser, shop):
    start_checkout(browser, shop)
    type_card(browser, NUMBER, cvc=CVC)
    sent_requests(browser)
    pay(browser)
    sent = sent_requests(browser)
    tokens = [body for method, url, body in sent if url.endswith("/v1/tokens")]
    assert len(tokens) == 1 and NUMBER in tokens[0]  # the card went to Stripe's API ...
    (checkout,) = [body for method, url, body in sent if url == f"{shop}/checkout/" and method == "POST"]
    posted = dict(urllib.parse.parse_qsl(checkout, keep_blank_values=True))
    assert posted["stripe_token"].startswith("tok_")  # ... and the shop got a token
    assert set(posted) == {"csrfmiddlewaretoken", "stripe_token", "name", "email", "ship-name", "ship-line1",
                           "ship-line2", "ship-city", "ship-postcode", "ship-country", "ship-region",
                           "ship-vat_number",  # the tax destination (taxes app)
                           "shipping_method",  # the method picked (shipping app)
                           "confirmed_total", "priced_for"}  # the total the page showed and what it was priced for; no card data


def test_a_declined_card_says_so_and_keeps_the_cart(browser, shop):
    start_checkout(browser, shop)
    type_card(browser, DECLINED)
    pay(browser)
    assert "declined" in browser.find_element("css selector", "form.checkout").text
    assert Order.objects.count() == 0 and charges() == {}
    (attempt,) = PaymentAttempt.objects.all()
    assert attempt.status == "declined"
    assert csp_reports(browser) == []
    # The shopper tries another card: paid.
    type_card(browser, NUMBER)
    pay(browser)
    assert Order.objects.count() == 1 and "/order/" in browser.current_url
    assert_invariant()


def test_3d_secure_completed_places_the_order(browser, shop):
    start_checkout(browser, shop)
    type_card(browser, THREE_D_SECURE)
    pay(browser)
    wait_for_3d_secure(browser, "Complete authentication")
    order = Order.objects.get()
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert "Visa ending 3155" in browser.page_source
    assert charges() == {order.payment.reference: (order.total, order.cart_id)}
    assert csp_reports(browser) == []
    assert_invariant()


def test_3d_secure_failed_charges_nothing_and_keeps_the_cart(browser, shop):
    start_checkout(browser, shop)
    type_card(browser, THREE_D_SECURE)
    pay(browser)
    wait_for_3d_secure(browser, "Fail authentication")
    assert browser.current_url == f"{shop}/checkout/"
    assert "Nothing was charged" in browser.find_element("css selector", "ul.messages").text
    assert Order.objects.count() == 0 and charges() == {}
    (attempt,) = PaymentAttempt.objects.all()
    assert attempt.status == "declined"
    # The intent was cancelled at Stripe: it can never be paid later.
    from orders.payments import StripeProvider

    assert StripeProvider().retrieve(attempt.intent_id).status == "canceled"
    assert csp_reports(browser) == []
    assert_invariant()
