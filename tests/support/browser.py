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


def _start_chromium(chromium, driver_path):
    """A headless Chromium driven by selenium, with a fresh profile (path returned too) and
    its console and network logs kept: ``(driver, profile path)``."""
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
    return driver, profile


def _reset(driver):
    """Make the shared Chromium as a fresh one for the next test (called after each test;
    raises WebDriverException when it no longer answers): the test's tab replaced by a new one (no page, history,
    emulated device or disabled scripts), every cookie, cache entry and origin's storage
    gone, the window at its start size, the logs read out, the implicit wait at 2 s."""
    from urllib.parse import urlsplit

    old = driver.current_window_handle
    origins = set()
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        parts = urlsplit(driver.current_url)
        if parts.scheme in ("http", "https"):
            origins.add(f"{parts.scheme}://{parts.netloc}")
    driver.switch_to.window(old)
    driver.switch_to.new_window("tab")
    fresh = driver.current_window_handle
    for handle in driver.window_handles:
        if handle != fresh:
            driver.switch_to.window(handle)
            driver.close()
    driver.switch_to.window(fresh)
    for origin in origins:
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.set_window_size(1280, 1000)
    driver.implicitly_wait(2)
    driver.get_log("browser")
    driver.get_log("performance")


_shared = {}


@pytest.fixture(scope="session")
def _chromium():
    """The test process's one Chromium (started by the first test asking for ``browser``,
    quit with the process): starting one takes 1 to 3 s of the machine's CPU, so tests
    share it, ``_reset`` after each. ``_shared``: ``{"driver", "profile"}`` while running."""
    yield _shared
    if _shared:
        _shared["driver"].quit()
        shutil.rmtree(_shared["profile"], ignore_errors=True)
        _shared.clear()


@pytest.fixture
def browser(_chromium):
    """A headless Chromium driven by selenium, as fresh as a new one (see ``_reset``: no
    cookies, cache, storage or page of an earlier test) with its console and network logs
    kept (CSP reports land in the console: ``csp_reports``; ``sent_requests``). One
    Chromium serves every test of the process; one that stops answering is replaced."""
    from selenium.common.exceptions import WebDriverException

    chromium, driver_path = find_browser()
    if not _chromium:
        driver, profile = _start_chromium(chromium, driver_path)
        driver.implicitly_wait(2)
        _chromium.update(driver=driver, profile=profile)
    try:
        yield _chromium["driver"]
    finally:
        try:  # at once: no page of this test keeps talking to the live server
            _reset(_chromium["driver"])
        except WebDriverException:
            try:
                _chromium["driver"].quit()
            except WebDriverException:
                pass
            shutil.rmtree(_chromium["profile"], ignore_errors=True)
            _chromium.clear()


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
