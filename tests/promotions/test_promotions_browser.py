"""Promotions in headless Chromium, with the local Stripe: the product page names the live
offer, the shopper types a discount code and a gift card on the cart page, pays the rest with a
Stripe test card at checkout, and the order page and the confirmation e-mail show each discount
and what the gift card paid; no CSP report anywhere."""

import datetime

import pytest
from django.core import mail

from core import clock
from inventory.models import Inventory
from orders.models import Order
from promotions.models import GiftCard, Offer, Voucher
from tests.support.browser import click_and_wait, csp_reports, type_card
from tests.support.payments import charges


@pytest.fixture
def shop(chinook, live_server):
    Offer(name="5% off everything this week", benefit=Offer.PERCENT, value=5).save()
    Voucher(code="SAVE3", name="Three dollars off", benefit=Voucher.FIXED, value=300, limit=10).save()
    GiftCard(code="GIFT-BROWSER", balance=1000, expires_at=clock.now() + datetime.timedelta(days=30)).save()
    Inventory.objects.set_stock("CHK-0001", 5)
    return live_server.url


def submit(browser, field_id, text):
    field = browser.find_element("id", field_id)
    field.send_keys(text)
    click_and_wait(browser, field.find_element("xpath", "./ancestor::form//button[@type='submit']"))


def test_a_code_and_a_gift_card_on_the_cart_then_a_stripe_card_and_the_order_shows_each(browser, shop):
    from selenium.webdriver.support.ui import Select

    browser.get(f"{shop}/p/CHK-0001/")
    assert "5% off everything this week" in browser.find_element("css selector", "ul.offers").text
    for _ in range(2):
        click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))
        browser.get(f"{shop}/p/CHK-0001/")
    browser.get(f"{shop}/cart/")
    submit(browser, "discount-code", "save3")
    discounts = browser.find_element("css selector", "ul.discounts").text
    assert "SAVE3: Three dollars off -$3.00" in discounts and "5% off everything this week" in discounts
    submit(browser, "gift-card-code", "gift-browser")
    assert "GIFT-BROWSER pays $10.00 at checkout" in browser.find_element("css selector", "ul.gift-cards").text

    browser.get(f"{shop}/checkout/")
    for name, value in {"ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
                        "ship-postcode": "sw1y 4jh", "email": "ada@example.com"}.items():
        browser.find_element("name", name).send_keys(value)
    Select(browser.find_element("name", "ship-country")).select_by_value("GB")
    page = browser.find_element("tag name", "main").text
    assert "Gift card GIFT-BROWSER" in page and "SAVE3" in page
    type_card(browser)
    click_and_wait(browser, browser.find_element("css selector", "form.checkout button[type=submit]"))

    order = Order.objects.get()
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert sorted((d.code, d.amount) for d in order.discounts)[1] == ("SAVE3", 300)
    assert order.gift_card == 1000 and charges() == {order.payment.reference: (order.total - 1000, order.cart_id)}
    rows = [row.text for row in browser.find_elements("css selector", "tr.discount, tr.gift-card")]
    offer = next(d for d in order.discounts if not d.code)
    assert rows == [f"5% off everything this week -${offer.amount / 100:.2f}", "Three dollars off (SAVE3) -$3.00",
                    "Paid by gift card GIFT-BROWSER $10.00"]
    (confirmation,) = [m for m in mail.outbox if order.number in m.subject]
    for text in (f"5% off everything this week: -${offer.amount / 100:.2f}", "Three dollars off (SAVE3): -$3.00",
                 "Paid by gift card GIFT-BROWSER: $10.00"):
        assert text in confirmation.body
    html = confirmation.alternatives[0][0]
    assert "Three dollars off (SAVE3)" in html and "Paid by gift card GIFT-BROWSER" in html
    assert GiftCard.objects.get(code="GIFT-BROWSER").balance == 0
    assert csp_reports(browser) == []
