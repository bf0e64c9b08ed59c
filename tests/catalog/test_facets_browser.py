"""Facets in a real browser (headless Chromium) on a phone-sized window: chosen with
JavaScript off (the Apply button) and on (each tick submits), the URL carrying the choice,
the listing narrowed, nothing wider than the phone, no CSP report."""

import re
from urllib.parse import parse_qs, urlsplit

from tests.support.browser import click_and_wait, csp_reports

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}


def phone(driver):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)


def listed(driver):
    return driver.find_element("css selector", ".count").text


def open_filters(driver):
    summary = driver.find_element("css selector", "details.facets summary")
    if driver.find_element("css selector", "details.facets").get_attribute("open") is None:
        summary.click()
    assert driver.find_element("css selector", ".facet-form button[type=submit]").is_displayed()


def count_of(label):
    """The count a facet's label shows (its text holds "(12 products)" or "(12)")."""
    return int(re.search(r"\((\d+)", label.text).group(1))


def box(driver, name, index=0):
    """The ``index``-th checkbox of facet ``name`` with a count above 0, and its label."""
    for item in driver.find_elements("css selector", f".facet-form input[name='{name}']"):
        label = driver.find_element("css selector", f"label[for='{item.get_attribute('id')}']")
        if count_of(label):
            if index == 0:
                return item, label
            index -= 1
    raise AssertionError(f"no {name} value to choose")


def fits(driver):
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE["width"]


def test_choosing_facets_without_javascript(live_server, browser, chinook):
    phone(browser)
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    browser.get(live_server.url + "/c/rock/")
    before = listed(browser)
    open_filters(browser)
    fits(browser)
    artist, label = box(browser, "artist")
    wanted = count_of(label)
    artist.click()
    band, _label = box(browser, "price")
    band.click()
    assert urlsplit(browser.current_url).query == ""  # nothing submitted yet: no script runs
    click_and_wait(browser, browser.find_element("css selector", ".facet-form button[type=submit]"))
    query = parse_qs(urlsplit(browser.current_url).query)
    assert query["artist"] and query["price"]
    assert browser.find_element("css selector", "details.facets").get_attribute("open") is not None
    assert box(browser, "artist")[0].is_selected() or any(
        i.is_selected() for i in browser.find_elements("css selector", "input[name=artist]"))
    assert listed(browser) != before and int(listed(browser).split()[0]) <= wanted
    fits(browser)
    click_and_wait(browser, browser.find_element("link text", "Clear filters"))
    assert listed(browser) == before
    assert csp_reports(browser) == []


def test_choosing_facets_with_javascript_submits_on_each_tick(live_server, browser, chinook):
    phone(browser)
    browser.get(live_server.url + "/c/rock/")
    before = listed(browser)
    open_filters(browser)
    click_and_wait(browser, box(browser, "price")[0])  # facets.js submits the form
    query = parse_qs(urlsplit(browser.current_url).query)
    assert list(query) == ["price"]
    narrowed = listed(browser)
    assert narrowed != before
    click_and_wait(browser, browser.find_element("id", "facet-in-stock"))
    query = parse_qs(urlsplit(browser.current_url).query)
    assert query["in_stock"] == ["1"] and query["price"]
    assert browser.find_element("id", "facet-in-stock").is_selected()
    fits(browser)
    browser.get(live_server.url + "/search/?q=rock")
    open_filters(browser)
    click_and_wait(browser, box(browser, "price")[0])
    query = parse_qs(urlsplit(browser.current_url).query)
    assert query["q"] == ["rock"] and query["price"]
    assert csp_reports(browser) == []
