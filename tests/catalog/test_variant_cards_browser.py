"""A listing narrowed to vinyl and a variant's own image in a real browser (headless Chromium):
the cards show the vinyl prices and link to the vinyl; on the product page the vinyl's image is
the cover while it is chosen, and choosing the CD and back swaps the cover (JavaScript), as
the address (``?variant=``) renders it; axe-core reports nothing serious, and no CSP report."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from tests.catalog.test_storefront_browser import axe_source, serious_violations  # noqa: F401 (a fixture)
from tests.catalog.test_variant_cards import VINYL_CARDS, _png, make_albums
from tests.support.browser import click_and_wait, csp_reports


@pytest.fixture
def shelf(make_tree, settings, tmp_path):
    settings.STOCK_LOW_THRESHOLD = 5
    settings.MEDIA_ROOT = str(tmp_path / "media")
    tree = make_tree({"Music": {}})
    albums = make_albums([tree["Music"].pk])
    product = albums["LTBR"]
    product.variants[1].image = default_storage.save("products/ltbr-vinyl.png", ContentFile(_png((400, 400))))
    product.save()
    return albums


def shown_cover(browser):
    """``(data-cover of the cover shown, its image's natural width)``: exactly one is shown."""
    shown = [c for c in browser.find_elements("css selector", "[data-cover]") if c.is_displayed()]
    assert len(shown) == 1, [c.get_attribute("data-cover") for c in shown]
    image = shown[0].find_element("css selector", "img")
    width = browser.execute_script(
        "const i = arguments[0]; return i.decode().then(() => i.naturalWidth).catch(e => String(e));", image)
    return shown[0].get_attribute("data-cover"), width


def test_a_vinyl_listing_and_the_vinyls_own_cover(live_server, browser, shelf, axe_source):  # noqa: F811
    browser.get(live_server.url + "/c/music/?format=Vinyl")
    cards = {}
    for card in browser.find_elements("css selector", "li.card"):
        title = card.find_element("css selector", ".title").text
        cards[title] = (card.find_element("css selector", "a").get_attribute("href").removeprefix(live_server.url),
                        card.find_element("css selector", ".price").text.split()[0],
                        card.find_element("css selector", ".stock").text)
    assert cards == {title: (link, price, stock) for title, (link, price, _was, _type, stock) in VINYL_CARDS.items()}
    assert serious_violations(browser, axe_source) == []

    link = browser.find_element("css selector", f'li.card a[href="{VINYL_CARDS["Let There Be Rock"][0]}"]')
    click_and_wait(browser, link)
    assert browser.current_url.endswith("/p/LTBR/?variant=LTBR-LP")
    assert browser.find_element("css selector", "input[value=LTBR-LP]").is_selected()
    assert browser.find_element("css selector", "[data-variant-price]").text == "$24.99"
    cover, width = shown_cover(browser)
    assert cover == "LTBR-LP" and width in (480, 960, 400)  # the vinyl's own image, loaded

    browser.find_element("css selector", "label[for=variant-1]").click()  # the CD: the product's cover
    assert browser.find_element("css selector", "[data-variant-price]").text == "$12.99"
    assert shown_cover(browser)[0] == ""
    browser.find_element("css selector", "label[for=variant-2]").click()  # the vinyl again
    cover, width = shown_cover(browser)
    assert cover == "LTBR-LP" and width in (480, 960, 400)
    assert browser.current_url.endswith("/p/LTBR/?variant=LTBR-LP")
    assert serious_violations(browser, axe_source) == []
    assert csp_reports(browser) == []
