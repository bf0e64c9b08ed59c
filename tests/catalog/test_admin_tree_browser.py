"""The admin's category tree in headless Chromium: drag and drop with Selenium's ActionChains,
a refused drop, collapse state across a reload, and no CSP report on any admin page.

Skipped when Chromium or its driver is missing, unless ``SHOP_REQUIRE_BROWSER=1`` (CI).
"""

import pytest

from catalog.models import Category
from core import mongo
from tests.support.browser import click_and_wait, csp_reports
from tests.support.tree import wrong_ancestors

PASSWORD = "a-long-pass-phrase"
TREE = "/admin/catalog/category/"


@pytest.fixture
def staff(live_server, browser, django_user_model):
    """The browser logged in to the admin as a superuser."""
    django_user_model.objects.create_superuser("staff", email="", password=PASSWORD)
    browser.get(live_server.url + "/admin/login/")
    browser.find_element("name", "username").send_keys("staff")
    browser.find_element("name", "password").send_keys(PASSWORD)
    click_and_wait(browser, browser.find_element("css selector", 'input[type="submit"]'))
    return browser


def _wait(driver, condition, timeout=20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def row(driver, name):
    """The changelist row of the category ``name``."""
    return driver.find_element(
        "xpath", f'//table[@id="result_list"]//tr[.//a[@class="tree-label" and text()="{name}"]]')


def visible_names(driver):
    return [a.text for a in driver.find_elements("css selector", "#result_list a.tree-label")
            if a.is_displayed()]


def drag(driver, name, target, where):
    """Drag the row ``name`` by its handle onto ``target``: its middle (inside), or near its
    top (before) or bottom (after) edge, with pointer actions; returns the dragged row."""
    from selenium.webdriver.common.action_chains import ActionChains

    source = row(driver, name)
    destination = row(driver, target)
    height = destination.size["height"]
    offset = {"inside": 0, "before": -height // 2 + 2, "after": height // 2 - 2}[where]
    (ActionChains(driver)
     .click_and_hold(source.find_element("css selector", ".tree-handle"))
     .move_by_offset(5, 5)
     .move_to_element_with_offset(destination, 0, offset)
     .pause(0.1)
     .release()
     .perform())
    return source


def drop_and_reload(driver, name, target, where):
    """Drag, then wait for the page the script reloads after the move (a mark left on the
    old page is gone; errors while Chromium swaps the pages are retried)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("document.body.setAttribute('data-before-drop', '1')")
    drag(driver, name, target, where)
    WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return document.readyState === 'complete' && document.body !== null"
            " && !document.body.hasAttribute('data-before-drop')"))
    return driver.find_element("css selector", "ul.messagelist li.success").text


def test_drag_inside_and_before_a_sibling_moves_the_category(staff, live_server, make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}, "Video": {"Concerts": {}}})
    staff.get(live_server.url + TREE)
    assert visible_names(staff) == ["Music", "Rock", "Metal", "Jazz", "Video", "Concerts"]

    assert drop_and_reload(staff, "Metal", "Concerts", "inside") == "Moved Metal into Concerts."
    assert visible_names(staff) == ["Music", "Rock", "Jazz", "Video", "Concerts", "Metal"]
    assert wrong_ancestors() == {}
    staff.get(live_server.url + "/c/metal/")
    crumbs = [li.text for li in staff.find_elements("css selector", "nav.breadcrumbs li")]
    assert crumbs == ["Home", "Video", "Concerts", "Metal"]

    staff.get(live_server.url + TREE)
    assert drop_and_reload(staff, "Jazz", "Rock", "before") == "Moved Jazz before Rock."
    assert drop_and_reload(staff, "Video", "Music", "before") == "Moved Video before Music."
    assert visible_names(staff) == ["Video", "Concerts", "Metal", "Music", "Jazz", "Rock"]
    assert [c.name for c in Category.objects.children(made["Music"])] == ["Jazz", "Rock"]

    # The storefront's navigation and subcategories follow the new order.
    staff.get(live_server.url + "/c/music/")
    nav = [a.text for a in staff.find_elements("css selector", "header nav a[href^='/c/']")]
    assert nav.index("Video") < nav.index("Music")
    subcategories = staff.find_element("css selector", ".subcategories").text
    assert subcategories.index("Jazz") < subcategories.index("Rock")
    assert csp_reports(staff) == []


def test_a_drop_on_the_nodes_own_descendant_is_refused(staff, live_server, make_tree):
    make_tree({"Music": {"Rock": {"Metal": {"Doom": {}}}}, "Video": {}})
    before = sorted(mongo.get_collection("categories").find({}), key=lambda d: d["slug"])
    staff.get(live_server.url + TREE)
    drag(staff, "Rock", "Doom", "inside")
    status = _wait(staff, lambda d: d.find_element("css selector", ".tree-status.tree-error"))
    assert "Nothing was moved: Rock cannot be moved under Doom" in status.text
    assert visible_names(staff) == ["Music", "Rock", "Metal", "Doom", "Video"]
    assert sorted(mongo.get_collection("categories").find({}), key=lambda d: d["slug"]) == before
    assert csp_reports(staff) == []


def test_collapse_state_survives_a_reload(staff, live_server, make_tree):
    make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}, "Video": {"Concerts": {}}})
    staff.get(live_server.url + TREE)
    row(staff, "Rock").find_element("css selector", ".tree-toggle").click()
    assert visible_names(staff) == ["Music", "Rock", "Jazz", "Video", "Concerts"]
    staff.refresh()
    assert visible_names(staff) == ["Music", "Rock", "Jazz", "Video", "Concerts"]
    toggle = row(staff, "Rock").find_element("css selector", ".tree-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"

    staff.find_element("css selector", ".tree-collapse-all").click()
    assert visible_names(staff) == ["Music", "Video"]
    staff.refresh()
    assert visible_names(staff) == ["Music", "Video"]
    row(staff, "Video").find_element("css selector", ".tree-toggle").click()
    assert visible_names(staff) == ["Music", "Video", "Concerts"]

    # A search opens the path to each match, whatever was collapsed.
    staff.get(live_server.url + TREE + "?q=metal")
    assert visible_names(staff) == ["Music", "Rock", "Metal"]

    staff.get(live_server.url + TREE)
    staff.find_element("css selector", ".tree-expand-all").click()
    staff.refresh()
    assert visible_names(staff) == ["Music", "Rock", "Metal", "Jazz", "Video", "Concerts"]
    assert csp_reports(staff) == []


def admin_pages():
    """Every admin page the shop has: each changelist, add and change form, the analytics
    pages, the index and the app indexes. A change form is that of the first stored object."""
    from django.contrib import admin
    from django.urls import reverse

    pages = [reverse("admin:index"), "/admin/analytics/", "/admin/analytics/reports/"]
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        pages.append(reverse("admin:app_list", args=[opts.app_label]))
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]))
    return list(dict.fromkeys(pages))


def test_no_csp_report_on_any_admin_page(staff, live_server, chinook):
    from django.contrib import admin
    from django.contrib.auth.models import Group

    from inventory.models import Cart
    from tests.support.inventory import add

    Group.objects.create(name="Editors")
    add(Cart.objects.create_cart().id, "CHK-0001")
    assert Cart.objects.exists()
    pages = admin_pages()
    # Every registered model's change form is among them (each has an object now), except
    # the models nobody adds by hand that stayed empty.
    empty = {m for m in admin.site._registry if not m._default_manager.exists()}
    assert sum("/change/" in p for p in pages) == len(admin.site._registry) - len(empty)
    seen = {}
    for page in pages:
        staff.get(live_server.url + page)
        assert "Server Error" not in staff.title, page
        seen[page] = csp_reports(staff)
    assert {page: reports for page, reports in seen.items() if reports} == {}
    assert len(seen) >= 20


def test_product_and_cart_lists_fit_1280_pixels(staff, live_server, chinook):
    from inventory.models import Cart
    from tests.support.inventory import add

    cart = Cart.objects.create_cart()
    add(cart.id, "CHK-0001")
    Cart.objects.collection.update_one({"_id": cart.id}, {"$set": {
        "customer_name": "Ada Lovelace", "customer_email": "ada.lovelace@example.com"}})
    staff.set_window_size(1280, 900)
    staff.get(live_server.url + "/admin/inventory/cart/")
    staff.save_screenshot("/tmp/issue13-carts.png")
    total = staff.find_element("css selector", "#result_list td.field-total_price")
    right = staff.execute_script("return arguments[0].getBoundingClientRect().right", total)
    # Inside the list's box (which would scroll sideways) and inside the window.
    box = staff.execute_script(
        "return document.querySelector('#changelist .results').getBoundingClientRect().right")
    assert right <= min(box, staff.execute_script("return document.documentElement.clientWidth"))
    assert "Ada Lovelace" in staff.find_element("css selector", "#result_list").text

    staff.get(live_server.url + "/admin/catalog/product/")
    sku = staff.find_element("css selector", "#result_list th.field-sku")
    assert sku.value_of_css_property("white-space") == "nowrap"
    available = staff.find_element("css selector", "#result_list td.field-available")
    assert available.text.isdigit()
    assert csp_reports(staff) == []
