"""The home page staff run, in a real browser (headless Chromium) at 1280 px and 390 px: the
demo's hero, collections and new-in row (``load_content``) and the footer menu; nothing wider
than the viewport, axe-core clean (no serious or critical violation), no CSP report; a
content page too. A hero scheduled for tomorrow does not show today and shows after its start
(the clock set by the test; the live server runs in this process)."""

import datetime

from django.core.management import call_command

from content.models import HomeBlock
from tests.catalog.test_storefront_browser import check_page
from tests.catalog.test_storefront_browser import axe_source  # noqa: F401 (a fixture)

NOW = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)


def test_the_home_page_at_a_laptops_and_a_phones_width(live_server, browser, axe_source, chinook,  # noqa: F811
                                                        monkeypatch):
    call_command("load_content", verbosity=0)
    monkeypatch.setattr("core.clock.now", lambda: NOW)
    HomeBlock.objects.create(kind=HomeBlock.HERO, heading="Vinyl week starts tomorrow", published=True,
                             position=1, starts_at=NOW + datetime.timedelta(days=1))
    problems = []
    browser.get(live_server.url + "/")
    hero = browser.find_element("css selector", ".home-hero h1")
    assert hero.text == "Records worth keeping"
    assert "Vinyl week" not in browser.page_source
    rows = [h.text for h in browser.find_elements("css selector", ".home-row h2")]
    assert rows == ["Rock classics", "Jazz", "Recorded live", "New in"]
    assert len(browser.find_elements("css selector", ".home-row .card")) >= 14
    footer = [a.text for a in browser.find_elements("css selector", ".footer-menu a")]
    assert footer == ["Shipping", "Returns", "Contact", "Privacy", "Terms of sale"]
    assert browser.execute_script(
        "const i = document.querySelector('.home-hero-image'); return i.complete && i.naturalWidth > 0;")
    check_page(browser, axe_source, "home-staff-run", problems)

    browser.get(live_server.url + "/pages/returns/")
    assert browser.find_element("css selector", "h1").text == "Returns"
    check_page(browser, axe_source, "content-page", problems)

    monkeypatch.setattr("core.clock.now", lambda: NOW + datetime.timedelta(days=1, minutes=1))
    browser.get(live_server.url + "/")
    assert browser.find_element("css selector", ".home-hero h1").text == "Vinyl week starts tomorrow"
    check_page(browser, axe_source, "home-scheduled-hero", problems)
    assert problems == [], "\n".join(problems)
