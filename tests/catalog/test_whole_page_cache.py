"""Product and category pages kept whole as HTML (``catalog/store/pages.py``): a warm page
renders no template, builds no model and reads only the versions (and the stock when its kept
figures lapsed); its holes (CSRF token, cart count, messages) are each visitor's own; every
edit, stock change, variant, filter and bad input shows as when the page is rendered."""

import re

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db.models.signals import pre_init
from django.test import Client, override_settings
from django.test.signals import template_rendered

from analytics.models import Event
from catalog.models import Pricing, Variant
from catalog.store import pages
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.support.products import make_product, set_price

VERSIONS = ("catalog_versions", "find")
STOCK = ("inventory", "find")
VIEW_EVENT = ("events", "insert")


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal; two albums in Metal (one with CD and vinyl), with stock."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}}})
    make_product("Alpha Album", genre=["Metal"], year=2001, list_cents=2000, retail_cents=1500,
                 categories=[tree["Metal"].pk], sku="SKU-A")
    album = make_product("Beta Album", genre=["Metal"], year=2002, list_cents=2000,
                         categories=[tree["Metal"].pk], sku="SKU-B")
    album.variants = [Variant(sku="SKU-B-CD", options={"format": "CD"}, pricing=Pricing.from_prices(1299, 1299)),
                      Variant(sku="SKU-B-LP", options={"format": "Vinyl"}, pricing=Pricing.from_prices(2499, 2499))]
    album.save()
    Inventory.objects.ensure_stock(["SKU-A", "SKU-B-CD", "SKU-B-LP"], 10)
    with override_settings(CACHES={**settings.CACHES, "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "whole-pages"}}):
        caches["default"].clear()
        yield tree


def without_tokens(response):
    """The page's HTML without its per-request CSRF tokens."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


def warm(client, url):
    """Ask for ``url`` until its page is kept: the first visit computes, the second keeps."""
    for _ in range(2):
        assert client.get(url).status_code == 200, url


class Watched:
    """Templates rendered, model instances built and round trips during a request."""

    def __init__(self):
        self.templates, self.models = [], []

    def __enter__(self):
        template_rendered.connect(self._template, dispatch_uid="whole-page-test")
        pre_init.connect(self._model, dispatch_uid="whole-page-test")
        self._ops = count_operations(this_thread=True)
        self.ops = self._ops.__enter__()
        return self

    def __exit__(self, *exc):
        self._ops.__exit__(*exc)
        template_rendered.disconnect(dispatch_uid="whole-page-test")
        pre_init.disconnect(dispatch_uid="whole-page-test")

    def _template(self, sender, template, **kwargs):
        self.templates.append(template.name)

    def _model(self, sender, **kwargs):
        self.models.append(sender.__name__)


@pytest.mark.parametrize("url", ["/p/SKU-A/", "/p/SKU-B/", "/p/SKU-B/?variant=SKU-B-LP", "/c/metal/",
                                 "/c/music/?sort=price", "/c/music/?sort=title&page=1",
                                 "/c/music/?format=Vinyl", "/c/music/?min_price=5.00&max_price=&sort=newest"])
def test_a_warm_page_renders_no_template_builds_no_model_and_reads_the_versions(shop, url):
    reader = Client()
    warm(reader, url)
    rendered = without_tokens(reader.get(url))
    with Watched() as watched:
        response = reader.get(url)
    assert response.status_code == 200
    assert watched.templates == [] and watched.models == []
    # The tests show stock as it is (STOCK_SHOWN_SECONDS 0): the one read of the shown SKUs.
    assert [op for op in watched.ops.operations if op != VIEW_EVENT] == [VERSIONS, STOCK]
    assert without_tokens(response) == rendered


@pytest.mark.parametrize("url", ["/p/SKU-A/", "/c/metal/"])
def test_with_the_stock_kept_a_warm_page_is_one_read(shop, settings, url):
    settings.STOCK_SHOWN_SECONDS = 60
    reader = Client()
    warm(reader, url)
    with count_operations(this_thread=True) as ops:
        reader.get(url)
    assert [op for op in ops.operations if op != VIEW_EVENT] == [VERSIONS]
    # A stock write forgets the kept figure: the page shows it on the next request.
    Inventory.objects.set_stock("SKU-A", 2)
    assert "Only 2 left" in reader.get(url).content.decode()


def test_a_kept_product_page_still_sends_its_view_event(shop):
    reader = Client()
    warm(reader, "/p/SKU-A/")
    with count_operations(this_thread=True) as ops:
        reader.get("/p/SKU-A/")
    assert VIEW_EVENT in ops.operations
    # The thread's next operation goes over the same connection, after the unacknowledged insert.
    assert Event.objects.collection.count_documents({"type": "view", "sku": "SKU-A"}) == 3


def test_each_visitor_sees_only_their_own_holes(shop, django_user_model):
    url = "/p/SKU-A/"
    shopper_with_cart = Client()
    assert shopper_with_cart.post("/cart/add/", {"sku": "SKU-A", "qty": 1}).status_code == 302
    guest = Client()
    warm(guest, url)  # kept for guests (with the stock the add left) before the shopper comes back
    signed_in = Client()
    signed_in.force_login(django_user_model.objects.create_user("sam", "sam@example.com", "pw-12345678"))
    warm(signed_in, url)
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("ada", "ada@example.com", "pw-12345678",
                                                            is_staff=True))
    warm(staff, url)

    with Watched() as watched:
        carts = shopper_with_cart.get(url).content.decode()
    assert watched.templates == []  # served from the guests' kept page
    assert "Cart (1)" in carts and "Added 1 ×" in carts and ">Sign in</a>" in carts
    assert "Added 1 ×" not in shopper_with_cart.get(url).content.decode()  # a message shows once
    for client, link in ((guest, "Sign in"), (signed_in, "Your account"), (staff, None)):
        page = client.get(url).content.decode()
        assert "Cart (0)" in page and "Added 1 ×" not in page
        for text in ("Sign in", "Your account"):
            assert (f">{text}</a>" in page) == (text == link)
    # Each CSRF token is its visitor's: a kept page's form posts.
    tokens = {re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(url).content.decode()).group(1)
              for client in (guest, shopper_with_cart, signed_in)}
    assert len(tokens) == 3
    poster = Client(enforce_csrf_checks=True)
    warm(poster, url)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', poster.get(url).content.decode()).group(1)
    assert poster.post("/cart/add/", {"sku": "SKU-A", "qty": 1, "csrfmiddlewaretoken": token}).status_code == 302
    assert "Cart (1)" in poster.get(url).content.decode()


@pytest.mark.parametrize("url", ["/p/SKU-A/", "/c/metal/"])
def test_a_kept_page_answers_with_the_headers_of_a_rendered_one(shop, url):
    def headers(response):
        return {name: value for name, value in response.items() if name != "Content-Length"}, \
            sorted(response.cookies)

    first = Client().get(url)  # rendered (a first visit)
    reader = Client()
    warm(reader, url)
    kept = Client().get(url)
    assert headers(kept) == headers(first)
    assert kept.headers["Vary"] == first.headers["Vary"]
    assert Client().head(url).status_code == 200


def test_an_edit_shows_on_the_next_request(shop):
    reader = Client()
    for url in ("/p/SKU-A/", "/c/metal/"):
        warm(reader, url)
    set_price("SKU-A", 444, 2000)
    assert "$4.44" in reader.get("/p/SKU-A/").content.decode()
    assert "$4.44" in reader.get("/c/metal/").content.decode()


def test_the_chosen_variant_is_kept_apart_and_follows_the_stock(shop):
    reader = Client()
    warm(reader, "/p/SKU-B/?variant=SKU-B-LP")
    page = reader.get("/p/SKU-B/?variant=SKU-B-LP").content.decode()
    assert 'value="SKU-B-LP" checked' in re.sub(r"\s+", " ", page)
    Inventory.objects.set_stock("SKU-B-LP", 0)
    page = reader.get("/p/SKU-B/?variant=SKU-B-LP").content.decode()
    assert 'value="SKU-B-CD" checked' in re.sub(r"\s+", " ", page)


@pytest.mark.parametrize("url", ["/c/metal/?min_price=abc", "/c/metal/?utm_source=mail", "/c/metal/?sort=nonsense",
                                 "/c/metal/?page=7", "/c/metal/?in_stock=1", "/c/metal/?min_price=5",
                                 "/p/SKU-A/?variant=SKU-B-LP", "/p/SKU-A/?x=1", "/p/SKU-B/?variant=SKU-B-CD&variant=SKU-B-CD"])
def test_a_page_with_bad_input_or_a_query_it_does_not_spell_is_never_kept(shop, url):
    reader = Client()
    statuses = set()
    for _ in range(3):
        with Watched() as watched:
            statuses.add(reader.get(url).status_code)
        assert watched.templates, url  # rendered every time
    assert statuses == ({400} if "abc" in url else {200})


def test_a_page_is_kept_apart_for_each_query_and_host(shop, settings):
    settings.ALLOWED_HOSTS = ["testserver", "shop.example.com"]
    reader = Client()
    for url in ("/c/music/?sort=price", "/c/music/?sort=title"):
        warm(reader, url)
    by_price = reader.get("/c/music/?sort=price").content.decode()
    by_title = reader.get("/c/music/?sort=title").content.decode()
    assert '<option value="title" selected>' in by_title and '<option value="price" selected>' in by_price
    warm(reader, "/p/SKU-A/")
    page = Client(HTTP_HOST="shop.example.com").get("/p/SKU-A/").content.decode()
    assert "http://shop.example.com/c/" in page and "http://testserver/" not in page


def test_without_the_kept_page_each_warm_request_renders(shop, monkeypatch):
    """What the tests above prove fails without the kept page: a warm request renders."""
    monkeypatch.setattr(pages, "kept", lambda *args, **kwargs: None)
    reader = Client()
    warm(reader, "/p/SKU-A/")
    with Watched() as watched:
        reader.get("/p/SKU-A/")
    assert "catalog/product.html" in watched.templates and "Product" in watched.models


def test_holes_never_reach_a_page_unfilled(shop):
    reader = Client()
    for url in ("/p/SKU-A/", "/c/metal/", "/", "/search/?q=alpha", "/cart/", "/p/NOPE/"):
        for _ in range(3):
            assert "page-hole" not in reader.get(url).content.decode(), url
