"""A return in headless Chromium: the signed-in shopper asks for it from the order page, staff
approve, receive and refund it in the admin, and the shopper's order page and e-mails
(``mail.outbox``) show each step. Skipped when Chromium or its driver is missing, unless
``SHOP_REQUIRE_BROWSER=1`` (CI), where that is a failure."""

import datetime

from django.contrib.auth import get_user_model
from django.core import mail

from orders import fulfilment, pricing
from orders.models import Order, ReturnRequest
from tests.orders.test_orders import cart_with, place
from tests.support.browser import click_and_wait
from tests.support.inventory import assert_invariant, inventory, stock

PASSWORD = "browser-Passphrase-5"


def _login(driver, url, username, form_css, submit_css):
    driver.delete_all_cookies()
    driver.get(url)
    driver.find_element("name", "username").send_keys(username)
    driver.find_element("name", "password").send_keys(PASSWORD)
    click_and_wait(driver, driver.find_element("css selector", f"{form_css} {submit_css}"))
    return [{"name": c["name"], "value": c["value"], "path": c.get("path", "/")} for c in driver.get_cookies()]


def _as(driver, cookies):
    """Switch the browser to the session in ``cookies`` (the shopper's or the staff member's)."""
    driver.delete_all_cookies()
    for cookie in cookies:
        driver.add_cookie(cookie)


def _order_page(driver, base, order):
    driver.get(f"{base}{order.get_absolute_url()}")
    return driver.find_element("css selector", "section.returns").text


def _step(driver, base, request, css):
    driver.get(f"{base}/admin/orders/returnrequest/{request.pk}/change/")
    click_and_wait(driver, driver.find_element("css selector", css))
    click_and_wait(driver, driver.find_element("css selector", "form.return-step input[type=submit]"))
    return driver.find_element("css selector", "ul.messagelist").text


def test_a_shopper_returns_a_unit_and_staff_settle_it_in_the_admin(browser, live_server):
    from selenium.webdriver.support.ui import Select

    base = live_server.url
    users = get_user_model().objects
    ada = users.create_user("ada@example.com", "ada@example.com", PASSWORD)
    users.create_superuser("staff", email="staff@example.com", password=PASSWORD)
    stock("A", 5)
    stock("B", 5)
    order = place(cart_with(("A", 3), ("B", 1)).id, user_id=str(ada.pk))
    fulfilment.ship(order.number, {0: 3, 1: 1}, "ups", "1Z999", datetime.date.today())
    order = Order.objects.get_by_number(order.number)
    expected = pricing.refund_of_units(order.lines[0], 1)["amount"]
    mail.outbox.clear()

    shopper = _login(browser, f"{base}/account/login/", "ada@example.com", "form.account-form",
                     "button[type=submit]")
    staff = _login(browser, f"{base}/admin/login/", "staff", "#login-form", 'input[type="submit"]')

    # The shopper asks for 1 of the 3 units of line A back.
    _as(browser, shopper)
    _order_page(browser, base, order)
    units = browser.find_element("name", "units_0")
    units.clear()
    units.send_keys("1")
    Select(browser.find_element("name", "reason")).select_by_value("damaged")
    browser.find_element("name", "comment").send_keys("The case is cracked.")
    click_and_wait(browser, browser.find_element("css selector", "form.return-form button[type=submit]"))
    assert "Your return request is recorded" in browser.find_element("css selector", "ul.messages").text
    assert "requested" in browser.find_element("css selector", "section.returns .return-status").text
    request = ReturnRequest.objects.get()
    assert [(l.line, l.qty) for l in request.lines] == [(0, 1)]
    assert mail.outbox[-1].subject.endswith("return requested") and mail.outbox[-1].to == ["ada@example.com"]

    seen = []
    for css, status, message in (("a.step-approve", "approved", "approved"),
                                 ("a.step-receive", "received", "marked received"),
                                 ("a.step-refund", "refunded", "refunded")):
        _as(browser, staff)
        assert message in _step(browser, base, request, css)
        _as(browser, shopper)
        text = _order_page(browser, base, order)
        assert browser.find_element("css selector", "section.returns .return-status").text == status
        # The return's e-mails (the refund's credit note comes in one of its own, after the response).
        steps = [m for m in mail.outbox if ", return " in m.subject]
        seen.append(steps[-1].subject.rsplit(" ", 1)[-1])
        if status == "refunded":
            assert f"${expected / 100:.2f} refunded" in text
            assert f"${expected / 100:.2f}" in steps[-1].body
    assert seen == ["approved", "received", "refunded"]
    assert len([m for m in mail.outbox if ", return " in m.subject]) == 4
    # The order: partly returned, the unit back in stock once, the return's events on its history.
    history = browser.find_element("css selector", "ul.history").text
    assert "Return approved" in history and "Return refunded" in history
    stored = Order.objects.get_by_number(order.number)
    assert stored.status == "partly returned" and stored.refunded == expected
    assert stored.lines[0].restocked == 1 and inventory("A")["qty"] == 5 - 3 + 1
    assert_invariant()
