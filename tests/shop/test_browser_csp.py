"""The Content-Security-Policy in a real browser (Debian's Chromium, headless).

The shop's own stylesheet loads, the JSON-LD breadcrumbs (a data block,
never executed) are not reported by the policy, and an injected inline
script is blocked.
"""

import json

from tests.support.browser import csp_reports

def test_the_policy_allows_the_shop_and_blocks_inline_scripts(browser, live_server, chinook):
    browser.get(f"{live_server.url}/c/rock/")
    assert "Rock" in browser.title
    # The shop's own stylesheet applies (shop.css styles the header bar as flex).
    bar = browser.find_element("css selector", ".site-header .bar")
    assert bar.value_of_css_property("display") == "flex"
    # The JSON-LD data block is in the page, intact, and the policy reports nothing.
    data = browser.execute_script(
        'return document.querySelector(\'script[type="application/ld+json"]\').textContent')
    assert json.loads(data)["@type"] == "BreadcrumbList"
    assert csp_reports(browser) == []
    # An inline script injected into the page is refused.
    browser.execute_script(
        "const s = document.createElement('script');"
        "s.textContent = 'window.injected = true';"
        "document.body.appendChild(s);")
    assert browser.execute_script("return window.injected === true") is False
    assert any("script-src" in report for report in csp_reports(browser))


def test_the_policy_lets_the_shops_own_script_fetch_suggestions(browser, live_server, chinook):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{live_server.url}/")
    browser.find_element("id", "search-q").send_keys("Big")
    WebDriverWait(browser, 10).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('#search-suggestions option').length") > 0)
    assert csp_reports(browser) == []


def test_the_staff_dashboard_charts_render_under_the_policy(browser, live_server, client, sales):
    from django.conf import settings

    from tests.support.sales import analyst

    client.force_login(analyst())
    browser.get(f"{live_server.url}/static/shop/shop.css")  # on the site, to set its cookie
    browser.add_cookie({"name": settings.SESSION_COOKIE_NAME,
                        "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "path": "/"})
    browser.get(f"{live_server.url}/admin/analytics/?year=2023")
    assert browser.find_elements("css selector", ".analytics-chart svg")
    assert csp_reports(browser) == []


def test_the_dashboard_at_1280_pixels_with_the_chinook_sales(browser, live_server, client, chinook):
    """The dashboard as staff see it, with the Chinook history and some live shopping.

    Saves ``test-artifacts/dashboard-1280.png`` and ``reports-1280.png`` (whole pages, 1280 px
    wide; the folder is not committed), follows the links between the two pages, and checks the
    policy reports nothing.
    """
    import datetime

    from django.conf import settings
    from django.core.management import call_command

    from analytics.models import Event

    call_command("load_sales", verbosity=0)
    now = datetime.datetime.now(datetime.UTC)
    Event.objects.insert_generated(
        [{"type": "view", "sku": "CHK-0001", "qty": 1, "amount": 0, "userid": "", "ts": now} for _ in range(12)]
        + [{"type": "cart", "sku": "CHK-0001", "qty": 1, "amount": 0, "userid": "", "ts": now} for _ in range(4)])
    Event.objects.record_order("browser-cart", [{"sku": "CHK-0001", "qty": 1, "price": 899}], ts=now)
    # Recorded a minute ago (events of the last seconds wait for the next rollup). No rollup
    # here: opening the dashboard rolls up, as the statistics have never been rolled up.
    from core.mongo import get_collection

    get_collection("events").update_many({}, {"$set": {"recorded": now - datetime.timedelta(seconds=60)}})
    from tests.support.sales import analyst

    client.force_login(analyst())
    browser.get(f"{live_server.url}/static/shop/shop.css")  # on the site, to set its cookie
    browser.add_cookie({"name": settings.SESSION_COOKIE_NAME,
                        "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "path": "/"})
    artifacts = settings.BASE_DIR / "test-artifacts"
    artifacts.mkdir(exist_ok=True)

    def whole_page(name):
        browser.set_window_size(1280, 800)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1280, min(height + 100, 8000))
        path = artifacts / name
        assert browser.save_screenshot(str(path)) and path.stat().st_size > 10_000
        assert browser.execute_script("return document.documentElement.clientWidth") <= 1280

    browser.set_window_size(1280, 800)
    browser.get(f"{live_server.url}/admin/analytics/")
    assert browser.title.startswith("Sales dashboard: All time")
    assert len(browser.find_elements("css selector", ".analytics-chart svg")) == 2
    assert "rolled up on opening it" in browser.find_element("id", "freshness").text
    funnel = browser.find_element("id", "funnel").text
    assert "%" in funnel and "22460" not in funnel
    assert "2240 imported sale lines in this period" in browser.find_element("id", "funnel-scope").text
    # The stylesheet is a static file: the figures align right.
    cell = browser.find_element("css selector", "#figures td.num")
    assert cell.value_of_css_property("text-align") == "right"
    whole_page("dashboard-1280.png")
    assert csp_reports(browser) == []

    browser.find_element("id", "reports-link").click()
    assert browser.title.startswith("Sales reports: All time")
    whole_page("reports-1280.png")
    browser.find_element("link text", "2023").click()
    assert "Monthly revenue with 20% tax, 2023" in browser.find_element("id", "with-tax-heading").text
    browser.find_element("id", "dashboard-link").click()
    assert browser.title.startswith("Sales dashboard: 2023")
def test_the_api_docs_work_offline_under_the_policy(browser, live_server, chinook):
    """Swagger UI comes from the shop's static files (no CDN), reads the OpenAPI schema and
    calls the API, with no CSP report."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{live_server.url}/api/v1/docs")
    WebDriverWait(browser, 20).until(
        lambda d: len(d.find_elements("css selector", ".opblock-summary")) == 5)
    assert "Chinook Records catalog API" in browser.find_element("css selector", ".title").text
    # Open the product operation, try it out with a SKU and a path, and read the answer.
    operation = browser.find_element("id", "operations-default-product_path")
    operation.find_element("css selector", ".opblock-summary").click()
    WebDriverWait(browser, 10).until(
        lambda d: operation.find_elements("css selector", ".try-out__btn"))
    operation.find_element("css selector", ".try-out__btn").click()
    inputs = operation.find_elements("css selector", ".parameters input[type=text]")
    # The schema's examples fill the boxes first: replace them.
    for box, value in zip(inputs, ("CHK-0001", "details/tracks/3/title")):
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.BACK_SPACE)
        box.send_keys(value)
    operation.find_element("css selector", ".execute").click()
    WebDriverWait(browser, 10).until(
        lambda d: "Inject The Venom" in operation.text)
    assert csp_reports(browser) == []
