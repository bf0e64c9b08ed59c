"""The admin in a real browser: headless Chromium (Debian's ``chromium`` and ``chromium-driver``)
driving the live server.

A member of staff logs in, renames a category, moves it under another one,
sees the new breadcrumbs on the storefront, then adds a product and finds
it on its category page. Skipped when Chromium or its driver is missing,
unless ``SHOP_REQUIRE_BROWSER=1`` (CI), where that is a failure.
"""

from catalog.models import Category, Product
from tests.support.browser import click_and_wait
from tests.support.tree import wrong_ancestors

def _submit(driver, name="_save"):
    click_and_wait(driver, driver.find_element("css selector", f'input[type="submit"][name="{name}"]'))


def _success_message(driver):
    return driver.find_element("css selector", "ul.messagelist li.success").text


def _crumbs(driver):
    return [li.text for li in driver.find_elements("css selector", "nav.breadcrumbs li")]


def test_staff_edit_the_tree_and_add_a_product_in_the_browser(live_server, browser, make_tree,
                                                             django_user_model):
    from selenium.webdriver.support.ui import Select

    tree = make_tree({"Music": {"Rock": {"Metal": {}}}, "Video": {"Concerts": {}}})
    django_user_model.objects.create_superuser("staff", email="", password="a-long-pass-phrase")

    # Log in as staff.
    browser.get(live_server.url + "/admin/")
    browser.find_element("name", "username").send_keys("staff")
    browser.find_element("name", "password").send_keys("a-long-pass-phrase")
    click_and_wait(browser, browser.find_element("css selector", 'input[type="submit"]'))
    assert "Site administration" in browser.page_source

    # The tree, indented, then rename "Metal".
    browser.get(live_server.url + "/admin/catalog/category/")
    rows = browser.find_elements("css selector", "#result_list a.tree-label")
    assert [r.text for r in rows] == ["Music", "Rock", "Metal", "Video", "Concerts"]
    click_and_wait(browser, browser.find_element("link text", "Metal"))
    name = browser.find_element("name", "name")
    name.clear()
    name.send_keys("Metal Music")
    _submit(browser)
    assert "Metal Music" in _success_message(browser)

    # Move it under "Concerts".
    click_and_wait(browser, browser.find_element("link text", "Metal Music"))
    Select(browser.find_element("name", "parent")).select_by_value(str(tree["Concerts"].pk))
    _submit(browser)
    assert "changed successfully" in _success_message(browser)
    assert wrong_ancestors() == {}

    # The storefront shows the new breadcrumbs.
    browser.get(live_server.url + "/c/metal/")
    assert _crumbs(browser) == ["Home", "Video", "Concerts", "Metal Music"]

    # Add a product in that category and find it on the category page.
    browser.get(live_server.url + "/admin/catalog/product/add/")
    click_and_wait(browser, browser.find_element("link text", "Audio Album"))  # the type comes first
    browser.find_element("name", "sku").send_keys("BROWSER-1")
    browser.find_element("name", "title").send_keys("Made In The Browser")
    Select(browser.find_element("name", "categories")).select_by_value(str(tree["Metal"].pk))
    browser.find_element("name", "list_price").send_keys("14.99")
    browser.find_element("name", "retail_price").send_keys("11.99")
    browser.find_element("name", "details_artist").send_keys("Selenium Quartet")
    _submit(browser)
    assert "Made In The Browser" in _success_message(browser)
    product = Product.objects.get_by_sku("BROWSER-1")
    assert (product.pricing.retail, product.categories) == (1199, [tree["Metal"].pk])

    browser.get(live_server.url + "/c/metal/")
    assert "Made In The Browser" in browser.find_element("css selector", "ul.cards").text
    browser.get(live_server.url + "/c/video/")  # and on its ancestors' pages
    assert "Made In The Browser" in browser.find_element("css selector", "ul.cards").text
    assert Category.objects.get_by_slug("metal").path == "Video > Concerts > Metal Music"
