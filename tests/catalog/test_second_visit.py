"""A page sorted by price and a search are warm from their second visit (``catalog/store/cache.py``).

What such a page depends on is known only once it is read: the price bands its
products span (``prices:<id>:<band>``), the products a search shows
(``product:<sku>``). A value is kept only under versions read before it was
computed, so before, the first visit learnt those names and the second kept the
page: warm from the third. Now a page sorted by price reads all its category's
price bands' versions first (``cached(..., family=...)``, one round trip on a
cold page), and a search keeps its order under its words' versions and reads its
cards by SKU under their products' (two layers, as a category page's): the
second visit reads what a warm category page sorted newest reads, and an edit,
even one made while the first visit reads, shows on the next request. The deals
pages keep their order under their savings' versions and read their cards by SKU
the same way, and the home page's newest under ``issued``.
"""

import threading

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from catalog.listings import manager as listings_manager
from catalog.listings import search_manager
from catalog.models import Product
from core.mongo.counter import count_operations
from tests.support.products import forty_rock_albums
from tests.support.products import set_price as support_set_price

PER_PAGE = 10
PAGES = ["/c/rock/?sort=price", "/c/rock/?sort=-price", "/c/rock/?sort=price&page=3", "/search/?q=album",
         "/search/?q=album&page=2"]
DEALS = ["/deals/?min=5", "/deals/?min=5&page=2"]


@pytest.fixture
def rock(make_tree, settings):
    """Music > Rock with 40 albums at 1.00 to 40.00, titled out of the price's order; stock
    read on every request (so that every page reads it); the reader's own cache, empty."""
    settings.CATALOG_PAGE_SIZE = PER_PAGE
    settings.STOCK_SHOWN_SECONDS = 0
    rock = forty_rock_albums(make_tree)
    cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "second-visit"}}
    with override_settings(CACHES=cache):
        caches["default"].clear()
        yield rock


def visit(client, url):
    """``(response, round trips)`` of a request for ``url`` (this thread's only)."""
    with count_operations(this_thread=True) as ops:
        response = client.get(url)
    assert response.status_code == 200, url
    return response, ops.operations


def skus_shown(response):
    return [p.sku for p in response.context["page"].object_list]


def plain(url):
    """The SKUs ``url`` (one of ``PAGES``) shows, sorted here from the products."""
    documents = list(Product.objects.collection.find({"sku": {"$regex": "^R-"}}))
    if url.startswith("/search/"):
        ordered = sorted(documents, key=lambda d: (d["title"], d["_id"]))  # every match in its title
    elif url.startswith("/deals/"):
        ordered = sorted(documents, key=lambda d: (-d["pricing"]["pct_savings"], d["_id"]))
    elif "sort=-price" in url:
        ordered = sorted(documents, key=lambda d: (-d["pricing"]["retail"], d["_id"]))
    else:
        ordered = sorted(documents, key=lambda d: (d["pricing"]["retail"], d["_id"]))
    page = int(url.split("page=")[1]) if "page=" in url else 1
    return [d["sku"] for d in ordered][(page - 1) * PER_PAGE:page * PER_PAGE]


def warm_newest(client):
    """The round trips of a warm category page sorted newest (its third visit)."""
    for _ in range(2):
        visit(client, "/c/rock/")
    return visit(client, "/c/rock/")[1]


@pytest.mark.parametrize("url", PAGES + DEALS + ["/"])
def test_the_second_visit_reads_what_a_warm_page_reads(rock, url):
    warm = warm_newest(Client())
    assert warm == [("catalog_versions", "find"), ("inventory", "find")], warm  # versions, stock
    reader = Client()
    visit(reader, url)
    response, second = visit(reader, url)
    assert second == warm, second  # no products read: its order and cards from the cache
    if url != "/":
        assert skus_shown(response) == plain(url)
    assert visit(reader, url)[1] == warm


@pytest.mark.parametrize("url", PAGES)
def test_a_first_visit_reads_the_price_bands_or_the_products_versions_before_the_page(rock, url):
    with count_operations(this_thread=True) as ops:
        assert Client().get(url).status_code == 200
    versions = [c["filter"]["name"] for c in ops.commands if c and c.get("find") == "catalog_versions"]
    ranges = [name for name in versions if "$gte" in name]
    # a search's order: its matches' ranking fields, read once, with its facet counts
    # (``Product.search.search_ranked``)
    sorts = [i for i, c in enumerate(ops.commands) if c and "products" in (c.get("aggregate"), c.get("find"))
             and ("'$sort': {'pricing.retail'" in repr(c.get("pipeline")) or "'details.tracks.title': 1" in repr(c))]
    assert len(sorts) == 1, ops.operations  # the page's order, read once (not its facet counts)
    if url.startswith("/c/"):
        # every price band of Rock (one range), read before its order
        assert ranges == [{"$gte": f"prices:{rock.pk}:", "$lt": f"prices:{rock.pk};"}], versions
        reads = [c for c in ops.commands[:sorts[0]] if c and c.get("find") == "catalog_versions"]
        assert reads[-1]["filter"]["name"] == ranges[0]
    else:
        # the versions of the products shown, read after the order and before their cards
        assert not ranges
        shown = {f"product:{sku}" for sku in plain(url)}
        asked = [i for i, c in enumerate(ops.commands) if c and c.get("find") == "catalog_versions"
                 and shown <= set(c["filter"]["name"].get("$in", ()))]
        cards = [i for i, c in enumerate(ops.commands) if c and c.get("find") == "products" and i not in sorts]
        assert len(asked) == 1 and len(cards) == 1 and sorts[0] < asked[0] < cards[0], ops.operations


def set_price(sku, cents):
    support_set_price(sku, cents, 5000)


@pytest.mark.parametrize("url", ["/c/rock/?sort=price", "/c/rock/?sort=-price"])
def test_a_price_edit_after_the_first_visit_reorders_the_second(rock, url):
    reader = Client()
    visit(reader, url)
    set_price("R-35", 50)  # 36.00 -> 0.50: to the front by price, off the page by price descending
    response, second = visit(reader, url)
    assert ("products", "aggregate") in second  # its price bands bumped: its order read again
    assert skus_shown(response) == plain(url)
    assert ("R-35" in skus_shown(response)) == (url == "/c/rock/?sort=price")
    assert skus_shown(visit(reader, url)[0]) == skus_shown(response)


def test_an_edit_after_the_first_visit_of_a_search_shows_on_the_second(rock):
    reader = Client()
    response, _ = visit(reader, "/search/?q=album")
    first = skus_shown(response)[0]
    set_price(first, 432)  # 1.00 -> 4.32: the same facet price band (a search's facets' words kept)
    response, second = visit(reader, "/search/?q=album")
    assert ("products", "aggregate") not in second, second  # its order kept: only its cards read
    assert "$4.32" in response.content.decode()
    product = Product.objects.get(sku=first)
    product.title = "Zulu Album"  # last by title now
    product.save()
    response, _ = visit(reader, "/search/?q=album")
    assert skus_shown(response) == plain("/search/?q=album") and first not in skus_shown(response)


@pytest.mark.parametrize("url", ["/search/?q=album", "/deals/?min=5"])
def test_a_sku_renamed_shows_on_the_next_search_or_deals_page(rock, url):
    reader = Client()
    response, _ = visit(reader, url)
    first = skus_shown(response)[0]
    product = Product.objects.get(sku=first)
    product.sku = "R-NEW"
    product.save()
    assert skus_shown(visit(reader, url)[0])[0] == "R-NEW"


def test_a_sku_renamed_then_edited_shows_on_the_next_category_page(rock):
    """A category page's cards are keyed by the versions of the SKUs its order holds: a SKU
    changed makes the order read again (``category:``), so a later edit of the product under
    its new SKU shows too."""
    reader = Client()
    url = "/c/rock/?sort=title"
    for _ in range(3):
        response, _ = visit(reader, url)
    first = reader.get(url).content.decode().split('<li class="card">')[1].split('href="/p/')[1].split("/")[0]
    product = Product.objects.get(sku=first)
    product.sku = "R-NEW"
    product.save()
    for _ in range(3):
        assert "/p/R-NEW/" in visit(reader, url)[0].content.decode()
    set_price("R-NEW", 4321)
    assert "$43.21" in visit(reader, url)[0].content.decode()


def test_a_price_edit_after_the_first_visit_of_deals_shows_on_the_second(rock):
    reader = Client()
    visit(reader, "/deals/?min=5")
    set_price("R-39", 10)  # 40.00 -> 0.10: the biggest saving, first
    response, _ = visit(reader, "/deals/?min=5")
    assert skus_shown(response) == plain("/deals/?min=5") and skus_shown(response)[0] == "R-39"
    assert "$0.10" in response.content.decode()


def edit_while_reading(monkeypatch, kind, edit):
    """Run ``edit`` in another thread (another process's write: it bumps no version this
    request has read) right after the first computation of a cached read of ``kind``
    (``catalog/listings/manager.py``): between a read of the products and the keeping of
    what it read."""
    real, done = listings_manager.cached, []

    def cached(kind_, key, compute, *args, **kwargs):
        if kind_ != kind or done:
            return real(kind_, key, compute, *args, **kwargs)

        def compute_then_edit():
            value = compute()
            done.append(kind)
            writer = threading.Thread(target=edit)
            writer.start()
            writer.join()
            return value

        return real(kind_, key, compute_then_edit, *args, **kwargs)

    monkeypatch.setattr(listings_manager, "cached", cached)
    monkeypatch.setattr(search_manager, "cached", cached)  # a search's order (``search_ranked``)
    return done


@pytest.mark.parametrize("url", ["/c/rock/?sort=price", "/c/rock/?sort=-price"])
def test_a_price_edit_made_while_the_first_visit_sorts_shows_on_the_second(rock, monkeypatch, url):
    reader = Client()
    done = edit_while_reading(monkeypatch, "page-order", lambda: set_price("R-35", 50))
    before = skus_shown(visit(reader, url)[0])
    assert done and "R-35" not in before[:1]  # read before the edit
    response, second = visit(reader, url)
    assert skus_shown(response) == plain(url)
    assert ("products", "aggregate") in second


@pytest.mark.parametrize("kind, edit, shows", [
    # its cards read, then a price changed: the cards are read again
    ("cards-by-sku", lambda sku: set_price(sku, 4321), lambda response, sku: "$43.21" in response.content.decode()),
    # its order read, then a title changed that moves it to the end
    ("search-ranked", lambda sku: _retitle(sku, "Zulu Album"),
     lambda response, sku: sku not in skus_shown(response)),
])
def test_an_edit_made_while_the_first_visit_of_a_search_reads_shows_on_the_second(rock, monkeypatch, kind, edit,
                                                                                      shows):
    first = plain("/search/?q=album")[0]
    reader = Client()
    done = edit_while_reading(monkeypatch, kind, lambda: edit(first))
    visit(reader, "/search/?q=album")
    assert done
    response, _ = visit(reader, "/search/?q=album")
    assert shows(response, first)
    assert skus_shown(response) == plain("/search/?q=album")


def _retitle(sku, title):
    product = Product.objects.get(sku=sku)
    product.title = title
    product.save()
