"""A shopper's whole path in headless Chromium: sign up, add, log out, add as a guest, log in
(the carts are combined and the message says so), check out with an address, see the order
in the account. No page raises a CSP report."""

import os
import time

from inventory.models import Inventory
from orders.models import Order
from tests.support.browser import click_and_wait, csp_reports, type_card
from tests.support.inventory import assert_invariant

PASSWORD = "browser-Passphrase-5"


def submit(driver, form_css):
    click_and_wait(driver, driver.find_element("css selector", f"{form_css} button[type=submit]"))


def fill(driver, values):
    for name, value in values.items():
        field = driver.find_element("name", name)
        field.clear()
        field.send_keys(value)


def screenshot(driver, name):
    """Save a screenshot to ``$SHOP_SCREENSHOTS/<name>.png`` when that variable is set (by hand)."""
    if os.environ.get("SHOP_SCREENSHOTS"):
        driver.save_screenshot(os.path.join(os.environ["SHOP_SCREENSHOTS"], f"{name}.png"))


def add_to_cart(driver, base, sku, qty):
    driver.get(f"{base}/p/{sku}/")
    fill(driver, {"qty": str(qty)})
    submit(driver, "form.add-to-cart")
    assert "Added" in driver.find_element("css selector", "ul.messages").text


def test_sign_up_add_log_out_add_log_in_check_out(browser, live_server, chinook):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    base = live_server.url
    Inventory.objects.set_stock("CHK-0001", 10)
    Inventory.objects.set_stock("CHK-0002", 10)

    browser.get(f"{base}/account/signup/")
    fill(browser, {"email": "ada@example.com", "password1": PASSWORD, "password2": PASSWORD})
    submit(browser, "form.account-form")
    assert "Check your e-mail" in browser.page_source
    # The e-mailed link (its host is SHOP_SITE_URL's; the path is followed on the live server).
    import re

    from django.core import mail

    # Sent after the response (core.afterresponse), so it may trail the page by a moment.
    deadline = time.monotonic() + 10
    while not mail.outbox and time.monotonic() < deadline:
        time.sleep(0.05)
    link = re.search(r"https?://[^/\s]+(/account/signup/confirm/\S+/)", mail.outbox[-1].body).group(1)
    browser.get(f"{base}{link}")
    fill(browser, {"password": PASSWORD})  # the password chosen at sign-up, typed again
    submit(browser, "form.account-form")
    assert "Signed in as ada@example.com" in browser.page_source

    add_to_cart(browser, base, "CHK-0001", 2)
    browser.get(f"{base}/account/")
    submit(browser, "form.inline")  # sign out (a POST)
    assert "Sign in" in browser.find_element("css selector", "nav.account").text
    assert "Cart (0)" in browser.find_element("css selector", "nav.account").text

    add_to_cart(browser, base, "CHK-0001", 1)
    add_to_cart(browser, base, "CHK-0002", 1)
    browser.get(f"{base}/account/login/")
    fill(browser, {"username": "ada@example.com", "password": PASSWORD})
    submit(browser, "form.account-form")
    message = browser.find_element("css selector", "ul.messages").text
    screenshot(browser, "login-combined")
    assert "We combined your cart" in message and "1 added to the 2 already there" in message
    assert "Cart (4)" in browser.find_element("css selector", "nav.account").text

    browser.get(f"{base}/cart/")
    click_and_wait(browser, browser.find_element("link text", "Check out"))
    page = browser.page_source
    assert "Shipping" in page and "Tax (20 %)" in page
    fill(browser, {"ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square",
                   "ship-city": "London", "ship-postcode": "sw1y 4jh",
                   "email": "ada@example.com"})
    Select(browser.find_element("name", "ship-country")).select_by_value("GB")
    type_card(browser)
    screenshot(browser, "checkout")
    submit(browser, "form.checkout")
    order = Order.objects.get()
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert "SW1Y 4JH" in browser.page_source and "Visa ending 4242" in browser.page_source
    screenshot(browser, "order")

    browser.get(f"{base}/account/")
    screenshot(browser, "account")
    link = browser.find_element("link text", order.number)
    click_and_wait(browser, link)
    assert f"Order {order.number}" in browser.find_element("tag name", "h1").text
    assert csp_reports(browser) == []
    assert {line.sku: line.qty for line in order.lines} == {"CHK-0001": 3, "CHK-0002": 1}
    assert_invariant()


def test_the_checkout_status_page_under_the_policy(browser, live_server, chinook):
    """A checkout interrupted after the card was submitted: the cart page links to the status
    page, which says the payment is being confirmed (no script, no CSP report)."""
    from inventory.models import Cart

    Inventory.objects.set_stock("CHK-0001", 5)
    add_to_cart(browser, live_server.url, "CHK-0001", 1)
    (cart,) = Cart.objects.filter(status="active")
    assert Cart.objects.lock_for_checkout(cart.id, "0123456789abcdef01234567") is not None
    browser.get(f"{live_server.url}/cart/")
    assert "Your payment is being confirmed" in browser.find_element("css selector", "ul.messages").text
    browser.get(f"{live_server.url}/checkout/status/")
    assert browser.title.startswith("Confirming your payment")
    assert csp_reports(browser) == []
