"""Headless Chromium for the browser tests (Debian's ``chromium`` and ``chromium-driver``).

The ``browser`` fixture is registered for every test by ``tests/conftest.py``.
A test that asks for it is skipped when Chromium or its driver is missing,
unless ``SHOP_REQUIRE_BROWSER=1`` (CI), where that is a failure.
"""

import os
import shutil
import tempfile

import pytest

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--window-size=1280,1000",
]


def find_browser():
    """(chromium path, chromedriver path), or a skip/failure with the reason."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromedriver", driver)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -r requirements-dev.txt)")
    if missing:
        reason = "browser test needs " + ", ".join(missing) + " (apt-get install chromium chromium-driver)"
        if os.environ.get("SHOP_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + "; SHOP_REQUIRE_BROWSER=1 requires it")
        pytest.skip(reason)
    return chromium, driver


@pytest.fixture
def browser():
    """A headless Chromium driven by selenium, with a fresh profile and its console and network
    logs kept (CSP reports land in the console: ``csp_reports``; ``sent_requests``); quit after the test."""
    chromium, driver_path = find_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="shop-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    # The console (CSP reports land there) and the network (what each request carried).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.implicitly_wait(2)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def csp_reports(driver):
    """The Content-Security-Policy reports in the browser's console since the last call."""
    return [entry["message"] for entry in driver.get_log("browser")
            if "Content Security Policy" in entry["message"]]


def click_and_wait(driver, element, timeout=30):
    """Click ``element`` and wait until the page it submits or links to has replaced it."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    element.click()
    # chromedriver may answer 'unhandled inspector error' while the old page unloads: keep waiting.
    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(
        expected_conditions.staleness_of(element))


def sent_requests(driver):
    """The requests the page sent since the last call: ``[(method, url, body or "")]`` (Chromium's
    network log: what really left the browser)."""
    import json

    sent = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            request = message["params"]["request"]
            sent.append((request["method"], request["url"], request.get("postData", "")))
    return sent


def type_card(driver, number="4242424242424242", month="12", year="39", cvc="123", postcode="10001"):
    """Type a test card into the card field of the checkout page. Locally the card field is the
    fake Stripe.js's (localstripe): plain inputs in the page, named by their placeholders."""
    for placeholder, value in (("number", number), ("exp_month", month), ("exp_year", year),
                               ("cvc", cvc), ("postal_code", postcode)):
        field = driver.find_element("css selector", f"#card-element input[placeholder={placeholder}]")
        field.clear()
        field.send_keys(value)
