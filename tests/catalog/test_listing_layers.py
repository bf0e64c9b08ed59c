"""A listing's page in two layers, its order and its cards (``catalog/listings/manager.py``), and
the deals counted and read per saving (``catalog.listings.query.DealsListing``).

A price edit re-reads the cards of its categories' pages (one read by ``_id``)
but re-sorts only the pages sorted by price whose prices it moves products
across; a page sorted by title or date keeps its order. Whatever the edits,
every page equals the plain sort of the category's products. Round trips
tell what was read: a page whose order is cold runs a ``products``
``aggregate``; one whose cards only are cold a ``products`` ``find``.
"""

import random
import re

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from catalog.listings.facets import facet_fields
from catalog.listings.facet_parts import PARTS, UNDATED
from catalog.models import Pricing, Product
from catalog.store import pages
from core.mongo.counter import count_operations
from tests.support.products import forty_rock_albums, make_product
from tests.support.products import set_price as support_set_price

PER_PAGE = 10


@pytest.fixture
def rock(make_tree, settings):
    """Music > Rock with 40 albums at 1.00 to 40.00 (every tenth a title and a date out of
    the price's order); the reader's own cache, empty."""
    settings.CATALOG_PAGE_SIZE = PER_PAGE
    rock = forty_rock_albums(make_tree)
    cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "layers"}}
    with override_settings(CACHES=cache):
        caches["default"].clear()
        yield rock


def reads(client, url):
    with count_operations() as ops:
        response = client.get(url)
    assert response.status_code == 200, url
    return response, ops.operations


def skus_shown(response):
    """The SKUs of the cards ``response`` shows, in order (from its HTML when it was a page kept
    whole, rendered without a context)."""
    if response.context is None:
        return re.findall(r'<li class="card">\s*<a href="/p/([^/"?]+)/', response.content.decode())
    return [p.sku for p in response.context["page"].object_list]


def plain(sort, page):
    """The SKUs of ``page`` of Rock's products in ``sort``, sorted here."""
    key = {"price": lambda d: (d["pricing"]["retail"], d["_id"]),
           "-price": lambda d: (-d["pricing"]["retail"], d["_id"]),
           "title": lambda d: (d["title"], d["_id"]),
           "newest": lambda d: (-d["details"]["issue_date"].timestamp(), d["_id"])}[sort]
    documents = sorted(Product.objects.collection.find({"sku": {"$regex": "^R-"}}), key=key)
    return [d["sku"] for d in documents][(page - 1) * PER_PAGE:page * PER_PAGE]


def warm(client, urls):
    for url in urls:
        for _ in range(3):
            client.get(url)


def set_price(sku, cents):
    support_set_price(sku, cents, 5000)


def test_a_price_edit_resorts_only_the_pages_it_moves_products_across(rock):
    reader = Client()
    urls = ["/c/rock/?sort=price&page=1", "/c/rock/?sort=price&page=4", "/c/rock/?sort=title",
            "/c/rock/"]
    warm(reader, urls)
    # R-35 (36.00, on page 4 by price) to 37.50: within page 4's prices, far from page 1's
    set_price("R-35", 3750)
    response, done = reads(reader, "/c/rock/?sort=price&page=1")
    # It does not show R-35: kept whole, no product read (before, its cards were read again).
    assert not [op for op in done if op[0] == "products"], done
    assert "R-35" not in response.content.decode() and "R-01" in response.content.decode()
    response, done = reads(reader, "/c/rock/?sort=price&page=4")
    assert ("products", "aggregate") in done  # its order read again
    assert skus_shown(response) == plain("price", 4)
    assert "$37.50" in response.content.decode()
    # A page sorted by title or date keeps its order; it reads its cards only when it shows R-35.
    reader.get("/c/rock/?sort=title&page=4")
    for url, sort, page in [("/c/rock/?sort=title", "title", 1), ("/c/rock/", "newest", 1),
                            ("/c/rock/?sort=title&page=4", "title", 4)]:
        shows = "R-35" in plain(sort, page)
        response, done = reads(reader, url)
        assert ("products", "aggregate") not in done, (url, done)
        assert (("products", "find") in done) == shows, (url, done)
        assert skus_shown(reader.get(url)) == plain(sort, page)
    # R-35 to 0.50: to the front of page 1, every page between shifts
    set_price("R-35", 50)
    response, done = reads(reader, "/c/rock/?sort=price&page=1")
    assert ("products", "aggregate") in done
    assert skus_shown(response)[0] == "R-35" and skus_shown(response) == plain("price", 1)


def test_pages_equal_the_plain_sort_after_any_edits(rock):
    reader = Client()
    urls = [f"/c/rock/?sort={sort}&page={page}" for sort in ("price", "-price", "title", "newest")
            for page in (1, 2, 3, 4)]
    warm(reader, urls)
    rng = random.Random(5)
    for _ in range(12):
        sku = f"R-{rng.randrange(40):02d}"
        if rng.random() < 0.3:
            product = Product.objects.get(sku=sku)
            product.title = f"Album {rng.randrange(100):02d}"
            product.save()
        else:
            set_price(sku, rng.randrange(50, 4500))
        for url in urls:
            sort, page = url.split("sort=")[1].split("&page=")
            assert skus_shown(reader.get(url)) == plain(sort, int(page)), url


def test_an_unchanged_price_band_leaves_the_facet_counts_warm(rock):
    reader = Client()
    warm(reader, ["/c/rock/?sort=title"])
    set_price("R-35", 3750)  # 36.00 -> 37.50: "$20 and over" both
    response, done = reads(reader, "/c/rock/?sort=title")
    assert ("products", "aggregate") not in done, done
    set_price("R-35", 1500)  # -> "$10 to $20": its issue decade's kept counts moved by the save
    with count_operations() as ops:
        response = reader.get("/c/rock/?sort=title")
    recounts = [c["filter"] for c in ops.commands if c and c.get("find") == "products" and "details.issue_date" in c["filter"]]
    assert recounts == [] and ("facet_counts", "find") in ops.operations, ops.commands  # read, not counted
    bands = {b["value"]: b["count"] for b in response.context["facets"].bands}
    assert bands == {"0-5": 4, "5-10": 5, "10-20": 11, "20-": 20}


# -- deals -------------------------------------------------------------------------------


@pytest.fixture
def deals(db, settings):
    settings.CATALOG_PAGE_SIZE = PER_PAGE
    for n in range(30):
        make_product(f"Deal {n}", list_cents=1000, retail_cents=1000 - 10 * (n % 15) * 3, sku=f"D-{n:02d}")
    cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "deals"}}
    with override_settings(CACHES=cache):
        caches["default"].clear()
        yield


def plain_deals(threshold):
    documents = Product.objects.collection.find({"pricing.pct_savings": {"$gt": threshold}})
    ordered = sorted(documents, key=lambda d: (-d["pricing"]["pct_savings"], d["_id"]))
    return [d["sku"] for d in ordered]


def test_deals_pages_and_counts_equal_the_plain_ones_after_edits(deals, monkeypatch):
    # The listing's layers themselves: every request renders (no page kept whole), so that
    # each answer has its context.
    monkeypatch.setattr(pages, "kept", lambda *args, **kwargs: None)
    reader = Client()
    rng = random.Random(3)
    for round_ in range(8):
        for threshold in (0, 20):
            expected = plain_deals(threshold)
            for page in (1, 2, 3):
                response = reader.get(f"/deals/?min={threshold}&page={page}")
                if (page - 1) * PER_PAGE >= max(len(expected), 1):
                    assert response.status_code in (200, 404)
                    continue
                assert response.context["page"].paginator.count == len(expected)
                assert skus_shown(response) == expected[(page - 1) * PER_PAGE:page * PER_PAGE]
        product = Product.objects.get(sku=f"D-{rng.randrange(30):02d}")
        product.pricing = Pricing.from_prices(1000, rng.randrange(400, 1001))
        product.save()


def test_a_saving_changed_recounts_one_decade_of_the_two_savings(deals):
    reader = Client()
    for _ in range(3):
        reader.get("/deals/?min=0")
    product = Product.objects.get(sku="D-01")  # saving 3 percent
    product.pricing = Pricing.from_prices(1000, 880)  # to 12
    product.save()
    with count_operations() as ops:
        response = reader.get("/deals/?min=0")
    counts = [c["pipeline"][0]["$match"] for c in ops.commands
              if c and c.get("aggregate") == "products" and "$group" in repr(c)]
    # one count each of the two savings' products of the edited album's decade (the 2020s)
    assert [(m["pricing.pct_savings"], m["details.issue_date"]["$lt"].year) for m in counts] == [(3, 2030), (12, 2030)]
    assert response.context["page"].paginator.count == len(plain_deals(0))


def test_a_saving_changed_recounts_one_decade_in_a_process_that_never_counted_it(deals):
    """The decades' counts are kept in the database with their stamps: a process whose cache
    holds none of them (another worker, a restart) counts the edited decade of the two
    savings, not all their products (before: one read of each saving whole)."""
    reader = Client()
    for _ in range(3):
        reader.get("/deals/?min=0")
    caches["default"].clear()  # another process: nothing of the deals cached
    product = Product.objects.get(sku="D-01")  # saving 3 percent
    product.pricing = Pricing.from_prices(1000, 880)  # to 12
    product.save()
    with count_operations() as ops:
        response = reader.get("/deals/?min=0")
    whole = [c for c in ops.commands if c and c.get("find") == "products" and "pricing.pct_savings" in c["filter"]]
    assert not whole, whole  # no saving read whole
    counts = [c["pipeline"][0]["$match"] for c in ops.commands
              if c and c.get("aggregate") == "products" and "$group" in repr(c)]
    assert [(m["pricing.pct_savings"], m["details.issue_date"]["$lt"].year) for m in counts] == [(3, 2030), (12, 2030)]
    assert response.context["page"].paginator.count == len(plain_deals(0))
    assert skus_shown(response) == plain_deals(0)[:PER_PAGE]


def test_each_facet_part_read_by_its_dates_is_its_share_of_the_whole(rock):
    # Every album is issued on 1 January: the first day of a decade is a part's lower bound
    # (SecantusDB's index range difference, catalog/listings/facet_parts.py).
    fields = facet_fields()
    whole = Product.facets._count_parts(rock.pk, fields, list(PARTS))
    assert sum(counts["total"] for counts in whole.values()) == 40
    for part in PARTS:
        if part != UNDATED:
            assert Product.facets._count_parts(rock.pk, fields, [part])[part] == whole[part], part
