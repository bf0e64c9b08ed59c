"""Choosing a variant in a real browser (headless Chromium) on a phone-sized window, with and
without JavaScript: the radio buttons of the product page's form post the chosen SKU, the
cart names the variant, a sold-out variant cannot be chosen; nothing overflows the phone's
width, axe-core reports nothing serious, and no CSP report."""

import pytest

from catalog.models import Pricing, Variant
from inventory.models import Inventory
from tests.catalog.test_storefront_browser import serious_violations, viewport
from tests.catalog.test_storefront_browser import axe_source  # noqa: F401 (a fixture)
from tests.support.browser import click_and_wait, csp_reports
from tests.support.products import make_product


@pytest.fixture
def album():
    product = make_product("Let There Be Rock", sku="LTBR", artist="AC/DC")
    product.variants = [Variant(sku=sku, options={"format": label}, pricing=Pricing.from_prices(cents, cents))
                        for sku, label, cents in [("LTBR-CD", "CD", 1299), ("LTBR-LP", "Vinyl", 2499),
                                                  ("LTBR-DL", "Digital", 899)]]
    product.save()
    for sku, qty in [("LTBR-CD", 3), ("LTBR-LP", 2), ("LTBR-DL", 0)]:
        Inventory.objects.ensure_stock([sku], qty)
    return product


@pytest.mark.parametrize("scripts", ["with JavaScript", "without JavaScript"])
def test_choosing_a_variant_on_a_phone(live_server, browser, album, axe_source, scripts):  # noqa: F811
    browser.get(live_server.url + "/")  # a page of the shop first, so the emulation applies to it
    if scripts == "without JavaScript":
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    browser.get(live_server.url + "/p/LTBR/")
    viewport(browser, "phone")
    radios = {r.get_attribute("value"): r for r in browser.find_elements("css selector", "input[name=sku]")}
    assert list(radios) == ["LTBR-CD", "LTBR-LP", "LTBR-DL"]
    assert radios["LTBR-CD"].is_selected() and not radios["LTBR-DL"].is_enabled()
    assert "Sold out" in browser.find_element("id", "variant-3-stock").text
    browser.find_element("css selector", "label[for=variant-2]").click()  # Vinyl, by its label
    assert radios["LTBR-LP"].is_selected()
    click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))
    assert "Let There Be Rock — Vinyl" in browser.find_element("css selector", ".messages").text
    assert browser.current_url.endswith("/p/LTBR/?variant=LTBR-LP")
    assert browser.find_element("css selector", "input[value=LTBR-LP]").is_selected()
    assert "Only 1 left" in browser.find_element("id", "variant-2-stock").text
    browser.get(live_server.url + "/cart/")
    assert "Let There Be Rock — Vinyl" in browser.find_element("css selector", "table.cart").text
    assert Inventory.objects.collection.find_one({"_id": "LTBR-LP"})["qty"] == 1
    assert Inventory.objects.collection.find_one({"_id": "LTBR-CD"})["qty"] == 3
    if scripts == "with JavaScript":  # axe-core and the width check run as scripts in the page
        browser.get(live_server.url + "/p/LTBR/")
        viewport(browser, "phone")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        assert serious_violations(browser, axe_source) == []
    assert csp_reports(browser) == []


def test_the_headline_follows_the_choice_and_the_address_names_it(live_server, browser, album):
    browser.get(live_server.url + "/p/LTBR/")
    text = {name: (lambda selector: lambda: browser.find_element("css selector", selector).text)(selector)
            for name, selector in [("price", "[data-variant-price]"), ("sku", "[data-variant-sku]"),
                                   ("stock", "#stock-status")]}
    assert (text["price"](), text["sku"]()) == ("$12.99", "LTBR-CD")
    browser.find_element("css selector", "label[for=variant-2]").click()  # Vinyl
    assert (text["price"](), text["sku"]()) == ("$24.99", "LTBR-LP")
    assert text["stock"]() == browser.find_element("css selector", "input[value=LTBR-LP]").get_attribute("data-stock")
    assert browser.current_url.endswith("/p/LTBR/?variant=LTBR-LP")
    browser.refresh()  # the server renders the same choice from the address
    assert (text["price"](), text["sku"]()) == ("$24.99", "LTBR-LP")
    assert csp_reports(browser) == []
