"""The storefront in a real browser (headless Chromium), at a phone's and a laptop's size.

Every shopper page, at 390x844 and 1280x800: nothing wider than the viewport
(``document.documentElement.scrollWidth``), no serious or critical violation
reported by axe-core (npm ``axe-core``, see package.json, injected into the
page), no CSP report; a screenshot of each is kept in
``test-artifacts/screenshots/`` (``SHOP_TEST_ARTIFACTS`` to put them
elsewhere; not committed) for a reviewer to look at. Then: a product sold
out in front of the shopper, and a cover uploaded in the admin showing as
a thumbnail in the listing.
"""

import io
import json
import os
import pathlib
import re

import pytest
from PIL import Image

from catalog.models import Product
from inventory.models import Inventory
from tests.support.browser import click_and_wait, csp_reports, type_card

ROOT = pathlib.Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = pathlib.Path(os.environ.get("SHOP_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "screenshots"
SIZES = {"phone": (390, 844, True), "laptop": (1280, 800, False)}
CARD = {"ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
        "ship-postcode": "sw1y 4jh", "email": "ada@example.com"}


@pytest.fixture
def axe_source():
    if not AXE.exists():
        reason = "axe-core is not installed: run `npm install` (package.json)"
        if os.environ.get("SHOP_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + "; SHOP_REQUIRE_BROWSER=1 requires it")
        pytest.skip(reason)
    return AXE.read_text()


def viewport(driver, size):
    """Give the page exactly the viewport of ``size`` (a key of SIZES), as a device would."""
    width, height, mobile = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def serious_violations(driver, axe_source):
    """axe-core's violations of impact serious or critical on the current page:
    ``["rule-id: target, target ..."]``."""
    driver.execute_script(axe_source)
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(JSON.stringify(r.violations))).catch(e => done(JSON.stringify({error: String(e)})));")
    violations = json.loads(result)
    assert isinstance(violations, list), violations
    return [f"{v['id']} ({v['impact']}): " + ", ".join(str(n["target"]) for n in v["nodes"][:5])
            for v in violations if v["impact"] in ("serious", "critical")]


def check_page(driver, axe_source, name, problems):
    """Check the page shown at both sizes; add what is wrong to ``problems``; save screenshots."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        viewport(driver, size)
        width = SIZES[size][0]
        scroll_width = driver.execute_script("return document.documentElement.scrollWidth")
        if scroll_width > width:
            wide = driver.execute_script(
                "return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > "
                "document.documentElement.clientWidth + 1).slice(0, 5).map(e => e.tagName + '.' + e.className);")
            problems.append(f"{name} at {size}: scrollWidth {scroll_width} > {width} ({wide})")
        driver.save_screenshot(str(ARTIFACTS / f"{name}-{width}x{SIZES[size][1]}.png"))
        problems.extend(f"{name} at {size}: {v}" for v in serious_violations(driver, axe_source))
    problems.extend(f"{name}: CSP {r}" for r in csp_reports(driver))


def test_every_shopper_page_fits_a_phone_and_passes_axe(live_server, browser, axe_source, chinook):  # noqa: F811
    Inventory.objects.set_stock("CHK-0002", 3)  # an "Only 3 left" on the Rock page
    Inventory.objects.set_stock("CHK-0004", 0)  # and a "Sold out"
    url = live_server.url
    problems = []

    def visit(name, path):
        browser.get(url + path)
        check_page(browser, axe_source, name, problems)

    visit("home", "/")
    visit("category", "/c/rock/")
    visit("category-page-2", "/c/rock/?sort=price&page=2")
    visit("product", "/p/CHK-0001/")
    visit("product-sold-out", "/p/CHK-0004/")
    visit("search", "/search/?q=venom")
    visit("deals", "/deals/")
    visit("artist", "/artist/AC/DC/")
    visit("genre", "/genre/Rock/")
    visit("bad-request", "/genre/Rock/?type=Vinyl")
    visit("not-found", "/p/NOPE/")
    visit("empty-cart", "/cart/")

    # Put something in the cart as a shopper does, then the cart, checkout and the order.
    browser.get(url + "/p/CHK-0001/")
    click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))
    assert "View cart" in browser.find_element("css selector", ".messages").text
    check_page(browser, axe_source, "added-to-cart", problems)
    visit("cart", "/cart/")
    visit("checkout", "/checkout/")
    type_card(browser)  # the rest of the form left empty: the server's form errors
    click_and_wait(browser, browser.find_element("css selector", "form.checkout button"))
    assert browser.find_elements("css selector", ".errorlist")
    check_page(browser, axe_source, "checkout-errors", problems)
    for name, value in CARD.items():
        field = browser.find_element("name", name)
        field.clear()
        field.send_keys(value)
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("name", "ship-country")).select_by_value("GB")
    type_card(browser)
    click_and_wait(browser, browser.find_element("css selector", "form.checkout button"))
    assert "/order/" in browser.current_url
    check_page(browser, axe_source, "order", problems)

    assert problems == [], "\n".join(problems)


def test_the_phone_header_keeps_search_cart_and_the_menu_in_reach(live_server, browser, chinook):  # noqa: F811
    browser.get(live_server.url + "/c/rock/")
    viewport(browser, "phone")
    for selector in ("#search-q", ".cart-link", ".menu summary", ".brand"):
        box = browser.execute_script(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
            "return [r.left, r.right, r.width];", selector)
        assert box[0] >= 0 and box[1] <= 390 and box[2] > 0, (selector, box)
    assert not browser.find_element("css selector", "nav.categories").is_displayed()
    browser.find_element("css selector", ".menu summary").click()
    deals = browser.find_element("css selector", ".menu a[href='/deals/']")
    assert deals.is_displayed()
    # The track table scrolls inside its own box, not the page.
    browser.get(live_server.url + "/p/CHK-0001/")
    viewport(browser, "phone")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
    viewport(browser, "laptop")
    assert browser.find_element("css selector", "nav.categories").is_displayed()
    assert not browser.find_element("css selector", ".menu").is_displayed()


def test_sold_out_after_the_stock_is_sold(live_server, browser, chinook):  # noqa: F811
    Inventory.objects.set_stock("CHK-0001", 2)
    browser.get(live_server.url + "/p/CHK-0001/")
    assert browser.find_element("id", "stock-status").text == "Only 2 left"
    quantity = browser.find_element("id", "qty")
    assert quantity.get_attribute("max") == "2"
    quantity.clear()
    quantity.send_keys("2")
    click_and_wait(browser, browser.find_element("css selector", ".add-to-cart button"))
    assert browser.find_element("id", "stock-status").text == "Sold out"
    assert not browser.find_element("css selector", ".add-to-cart button").is_enabled()
    assert not browser.find_elements("id", "qty")
    browser.get(live_server.url + "/artist/AC/DC/")
    card = [c for c in browser.find_elements("css selector", ".card")
            if "For Those About To Rock" in c.text][0]
    assert "Sold out" in card.text


def test_a_cover_uploaded_in_the_admin_is_a_thumbnail_in_the_listing(
        live_server, browser, chinook, django_user_model, tmp_path):  # noqa: F811
    django_user_model.objects.create_superuser("staff", email="", password="a-long-pass-phrase")
    picture = tmp_path / "front.png"
    buffer = io.BytesIO()
    Image.new("RGB", (600, 600), (20, 90, 160)).save(buffer, "PNG")
    picture.write_bytes(buffer.getvalue())

    browser.get(live_server.url + "/admin/")
    browser.find_element("name", "username").send_keys("staff")
    browser.find_element("name", "password").send_keys("a-long-pass-phrase")
    click_and_wait(browser, browser.find_element("css selector", 'input[type="submit"]'))
    product = Product.objects.get_by_sku("CHK-0001")
    browser.get(f"{live_server.url}/admin/catalog/product/{product.pk}/change/")
    # The cover is the product's first image, a row of the form's images (catalog/admin/gallery.py).
    browser.find_element("name", "product_images-0-image").send_keys(str(picture))
    browser.find_element("name", "product_images-0-alt").send_keys("A blue square")
    click_and_wait(browser, browser.find_element("css selector", 'input[type="submit"][name="_save"]'))
    assert Product.objects.get_by_sku("CHK-0001").image.name.startswith("products/front")
    browser.get(live_server.url + "/p/CHK-0001/")
    assert browser.find_element("css selector", ".product-cover img.cover").get_attribute("alt") == "A blue square"

    browser.get(live_server.url + "/artist/AC/DC/")
    img = [c for c in browser.find_elements("css selector", ".card")
           if "For Those About To Rock" in c.text][0].find_element("css selector", "img.cover")
    assert re.match(r"/media/CACHE/images/products/front", img.get_attribute("src").replace(live_server.url, ""))
    assert img.get_attribute("loading") == "lazy" and " 2x" in img.get_attribute("srcset")
    browser.execute_script("arguments[0].scrollIntoView()", img)
    loaded = browser.execute_script(
        "const i = arguments[0]; return i.decode().then(() => [i.complete, i.naturalWidth]).catch(e => String(e));",
        img)
    assert loaded[0] and loaded[1] in (240, 480), loaded  # 1x or 2x, as the screen asks
