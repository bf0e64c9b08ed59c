"""Issue 44's browser test: a signed-in shopper with two saved addresses picks the one that is
not the default at checkout (one click), sees the tax change for that country, pays with a
Stripe test card, and the order page shows the address in that country's format."""

import pytest
from django.contrib.auth import get_user_model

from addresses.models import SavedAddress
from inventory.models import Inventory
from orders.models import Order
from tests.catalog.test_storefront_browser import axe_source, serious_violations  # noqa: F401 - a fixture
from tests.support.browser import click_and_wait, csp_reports, type_card

PASSWORD = "browser-Passphrase-5"


@pytest.fixture
def shop(chinook, live_server):
    return live_server.url


def test_a_saved_address_picked_at_checkout_prices_and_prints_for_its_country(browser, shop, axe_source):
    user = get_user_model().objects.create_user("ada@example.com", "ada@example.com", PASSWORD)
    SavedAddress.objects.add(user.pk, {"name": "Ada Lovelace", "line1": "12 St James's Square", "line2": "",
                                       "city": "London", "postcode": "SW1Y 4JH", "country": "GB", "region": ""},
                             label="Home")
    office = SavedAddress.objects.add(user.pk, {"name": "Ada Lovelace", "line1": "350 Fifth Avenue", "line2": "",
                                                "city": "New York", "postcode": "10118", "country": "US",
                                                "region": "NY"}, label="Office")
    Inventory.objects.set_stock("CHK-0001", 5)
    browser.get(f"{shop}/account/login/")
    browser.find_element("name", "username").send_keys("ada@example.com")
    browser.find_element("name", "password").send_keys(PASSWORD)
    click_and_wait(browser, browser.find_element("css selector", "form.account-form button[type=submit]"))
    browser.get(f"{shop}/p/CHK-0001/")
    click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))

    browser.get(f"{shop}/checkout/")
    # The default (London) fills the form; the page is priced for the UK.
    assert browser.find_element("name", "ship-city").get_attribute("value") == "London"
    uk_tax = browser.find_element("css selector", ".order-summary tr.tax").text
    assert "20 %" in uk_tax
    assert serious_violations(browser, axe_source) == []
    office_button = browser.find_element("css selector", f"button.address-choice[value='{office.pk}']")
    assert office_button.get_attribute("aria-pressed") == "false"
    click_and_wait(browser, office_button)  # one click
    assert browser.find_element("name", "ship-city").get_attribute("value") == "New York"
    assert browser.find_element("css selector", "button.address-choice.chosen").get_attribute("value") == str(office.pk)
    us_tax = browser.find_element("css selector", ".order-summary tr.tax").text
    assert us_tax != uk_tax and "20 %" not in us_tax
    assert browser.find_element("name", "email").get_attribute("value") == "ada@example.com"  # the account's
    type_card(browser)
    click_and_wait(browser, browser.find_element("css selector", "form.checkout button.pay"))

    assert "/order/" in browser.current_url, browser.find_element("css selector", "main").text
    order = Order.objects.get()
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert (order.address.country, order.address.region) == ("US", "NY")
    shown = browser.find_element("css selector", "main address").text.splitlines()
    assert shown == ["Ada Lovelace", "350 Fifth Avenue", "New York, NY 10118", "United States of America"]
    assert csp_reports(browser) == []
