"""Screenshots of the storefront for the docs: ``docs/images/<page>-<width>.png``.

    .venv/bin/python bench/screenshots.py [--workdir DIR] [--out docs/images] [--colors 128]

Starts the shop as ``bench/demo_shop.py`` does (production settings under gunicorn, the
demo catalog on a local database of its own, loaded at the first run in ``--workdir``: a
few minutes; later runs reuse it) and walks through it as a guest in headless Chromium
(Debian's ``chromium`` and ``chromium-driver``, driven by selenium as the browser tests
do), at 1280 px (a desktop: the first 800 px of each page) and at 390 px (a phone,
emulated: the whole page): home, the Rock category, an album with variants (CD and
vinyl), the cart with two lines (its vinyl and another album), checkout, and the page
of the order placed there (paid with the local Stripe's test card). Each PNG is reduced
to a palette of ``--colors`` colours with Pillow (a tenth of the bytes). Pages linked
from docs/shoppers.md ("What it looks like").
"""

import argparse
import base64
import io
import shutil
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.demo_shop import PAGES, DemoShop  # noqa: E402
from tests.support.browser import CHROMIUM_FLAGS, type_card  # noqa: E402

#: (width, height of the viewport, whole page?, emulate a phone?)
WIDTHS = [(1280, 800, False, False), (390, 844, True, True)]
#: The address and e-mail typed at checkout.
ADDRESS = {"ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
           "ship-postcode": "SW1Y 4JH", "email": "ada@example.com"}


def start_chromium():
    """A headless Chromium driven by selenium (raises ``SystemExit`` with the reason when missing)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        sys.exit("Needs Chromium and its driver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(driver), options=options)
    browser.implicitly_wait(5)
    return browser


def settle(browser):
    """Load every lazy image now and wait (at most 10 s) until the page's images are drawn."""
    browser.execute_script("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not browser.execute_script(
            "return [...document.images].every(i => i.complete) && document.readyState === 'complete'"):
        time.sleep(0.1)
    time.sleep(0.3)  # fonts and the last layout


def shoot(browser, path, width, height, whole_page, colors):
    """Save the page as a palette PNG at ``path``: the viewport, or ``whole_page`` from top to bottom."""
    from PIL import Image

    settle(browser)
    if whole_page:
        full = browser.execute_script("return document.documentElement.scrollHeight")
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": full, "scale": 1}})
    else:
        browser.execute_script("window.scrollTo(0, 0)")
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
    image = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    image.save(path, optimize=True)
    print(f"{path.relative_to(BASE_DIR)}: {image.width} x {image.height}, {path.stat().st_size // 1024} KB",
          flush=True)


def add_to_cart(browser, base, product, sku):
    """Add one unit of ``sku`` from ``product``'s page (choosing its variant when it has them)."""
    browser.get(f"{base}/p/{product}/")
    radios = browser.find_elements("css selector", f"form.add-to-cart input[type=radio][value='{sku}']")
    if radios:
        browser.execute_script("arguments[0].click()", radios[0])
    submit(browser, "form.add-to-cart")


def submit(browser, form_css):
    """Submit the form ``form_css`` with its submit button and wait for the next page."""
    from tests.support.browser import click_and_wait

    click_and_wait(browser, browser.find_element("css selector", f"{form_css} button[type=submit]"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=str(BASE_DIR / "bench" / "results" / "demo-shop"),
                        help="the demo shop's database and files, reused by later runs (default %(default)s)")
    parser.add_argument("--out", default=str(BASE_DIR / "docs" / "images"), help="where the PNGs go")
    parser.add_argument("--colors", type=int, default=128, help="colours of each PNG's palette (default 128)")
    options = parser.parse_args()
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    paths = dict(PAGES)
    with DemoShop(options.workdir) as shop:
        for name, path in PAGES:
            shop.get(path)  # caches warm, as shoppers find them
        browser = start_chromium()
        try:
            for width, height, whole_page, phone in WIDTHS:
                browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
                browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone})

                def page(name, path=None):
                    if path:
                        browser.get(shop.base + path)
                    shoot(browser, out / f"{name}-{width}.png", width, height, whole_page, options.colors)

                for name in ("home", "category", "product"):
                    page(name, paths[name])
                add_to_cart(browser, shop.base, "CHK-0003", "CHK-0003-LP")
                add_to_cart(browser, shop.base, "CHK-0001", "CHK-0001")
                page("cart", paths["cart"])
                page("checkout", paths["checkout"])
                from selenium.webdriver.support.ui import Select

                for field, value in ADDRESS.items():
                    browser.find_element("name", field).send_keys(value)
                Select(browser.find_element("name", "ship-country")).select_by_value("GB")
                type_card(browser)
                submit(browser, "form.checkout")
                if "/order/" not in browser.current_url and browser.find_elements("css selector", "form.checkout"):
                    type_card(browser)  # the total moved with the address's tax and shipping: pay again
                    submit(browser, "form.checkout")
                if "/order/" not in browser.current_url:
                    sys.exit(f"checkout did not place the order: {browser.current_url}")
                page("order")
        finally:
            browser.quit()


if __name__ == "__main__":
    main()
