"""Content pages at ``/pages/<slug>/`` (Markdown sanitised with nh3), the footer menu, and the
checkout's links to the terms and returns pages (``content/``)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.test import Client, override_settings

from content.markup import render_markdown
from content.models import ContentPage, FooterLink
from core.mongo.counter import count_operations


@pytest.fixture
def reader():
    """A client whose cache is a store of its own that no write clears (another worker's)."""
    stores = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "pages-reader"}}
    with override_settings(CACHES=stores):
        caches["default"].clear()
        yield Client()


def page(slug="returns", title="Returns", body="Send it back within **30 days**.", published=True):
    return ContentPage.objects.create(slug=slug, title=title, body=body, published=published)


def test_a_published_page_shows_its_markdown_as_html(reader):
    page(body="## How\n\n1. Write to us\n2. Post it\n\n[Contact](/pages/contact/)")
    response = reader.get("/pages/returns/")
    text = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Returns</h1>" in text and "<h2>How</h2>" in text and "<li>Write to us</li>" in text
    assert '<a href="/pages/contact/" rel="noopener noreferrer">Contact</a>' in text


@pytest.mark.parametrize("markdown, gone", [
    ("Hi <script>alert('x')</script> there", ["<script", "alert("]),
    ("<img src=x onerror=alert(1)>", ["onerror", "<img"]),
    ("[click](javascript:alert(1))", ["javascript:"]),
    ('<a href="/" onclick="steal()">x</a> <style>body{display:none}</style>', ["onclick", "<style", "display:none"]),
    ("<iframe src=https://evil.example></iframe>", ["<iframe"]),
])
def test_markdown_is_sanitised(markdown, gone):
    html = render_markdown(markdown)
    for bad in gone:
        assert bad not in html, (markdown, html)


def test_a_script_typed_in_the_admin_never_reaches_a_shopper(reader):
    page(body="Returns are free.\n\n<script>document.location='https://evil.example'</script>")
    text = reader.get("/pages/returns/").content.decode()
    assert "Returns are free." in text and "evil.example" not in text


def test_a_missing_or_unpublished_page_is_a_404_in_the_shops_look(reader):
    page(slug="privacy", title="Privacy", published=False)
    for url in ["/pages/privacy/", "/pages/nope/"]:
        response = reader.get(url)
        assert response.status_code == 404
        assert "Not found" in response.content.decode() and 'class="site-header"' in response.content.decode()
    for url in ["/pages/a.*b/", "/pages/%24ne/", "/pages/x%0A/"]:  # no slug: no query at all
        with count_operations() as ops:
            assert reader.get(url).status_code == 404
        assert ("content_pages", "find") not in ops.operations


def test_a_page_edit_shows_on_the_next_request_and_the_warm_page_reads_only_versions(reader):
    made = page()
    for _ in range(3):
        reader.get("/pages/returns/")
    with count_operations() as ops:
        reader.get("/pages/returns/")
    assert ops.operations == [("catalog_versions", "find")]
    made.body = "Returns within **60 days**."
    made.save()
    assert "60 days" in reader.get("/pages/returns/").content.decode()
    made.published = False
    made.save()
    assert reader.get("/pages/returns/").status_code == 404


def test_the_footer_menu_is_ordered_and_follows_its_edits(reader):
    returns, terms = page(), page(slug="terms", title="Terms of sale", body="Terms.")
    FooterLink.objects.create(label="Terms", page=terms, position=20)
    FooterLink.objects.create(label="Returns", page=returns, position=10)
    FooterLink.objects.create(label="Blog", url="https://blog.example.com/", position=30)
    text = reader.get("/pages/terms/").content.decode()
    footer = text[text.index('<footer'):]
    assert footer.index('href="/pages/returns/">Returns') < footer.index('href="/pages/terms/">Terms') \
        < footer.index('href="https://blog.example.com/">Blog')
    returns.published = False
    returns.save()
    footer = reader.get("/pages/terms/").content.decode().split("<footer")[1]
    assert "Returns" not in footer and "Terms" in footer


def test_no_footer_menu_costs_no_read(reader, make_tree):
    make_tree({"Music": {}})
    with count_operations() as ops:
        reader.get("/c/music/")
    assert ("footer_links", "find") not in ops.operations


def test_staff_edit_pages_and_the_footer_in_the_admin(reader):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw")
    admin = Client()
    admin.force_login(boss)
    response = admin.post("/admin/content/contentpage/add/", {
        "title": "Shipping", "slug": "shipping", "published": "on", "body": "We ship in **2 days**."})
    assert response.status_code == 302
    response = admin.post("/admin/content/contentpage/add/", {
        "title": "Bad", "slug": "a b/../x", "published": "on", "body": "x"})
    assert response.status_code == 200 and "slug" in response.content.decode()
    shipping = ContentPage.objects.get(slug="shipping")
    response = admin.post("/admin/content/footerlink/add/", {"label": "Shipping", "page": str(shipping.pk),
                                                              "url": "", "position": "1"})
    assert response.status_code == 302
    response = admin.post("/admin/content/footerlink/add/", {"label": "Bad", "page": "", "url": "javascript:x",
                                                              "position": "2"})
    assert response.status_code == 200
    text = reader.get("/pages/shipping/").content.decode()
    assert "<strong>2 days</strong>" in text and 'href="/pages/shipping/">Shipping</a></li>' in text


def test_the_checkout_links_to_the_terms_and_returns(client):
    from django.template.loader import render_to_string

    html = render_to_string("orders/_checkout_terms.html")
    assert 'href="/pages/terms/"' in html and 'href="/pages/returns/"' in html
    from django.conf import settings

    checkout = (settings.BASE_DIR / "templates" / "orders" / "checkout.html").read_text()
    assert checkout.count('{% include "orders/_checkout_terms.html" %}') == 1
