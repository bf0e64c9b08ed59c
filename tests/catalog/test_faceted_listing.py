"""A category page with a facet chosen, read from what is kept (``FacetManager.chosen_counts``,
``ListingManager``'s ``FacetedListing``): its counts from the kept counts given the choice, its
page from windows of issue dates narrowed by the choice.

Every count, every product and their order equal plain queries of the products, before
and after edits and stock changes, warm and from the kept documents; a cold page examines
about the products it shows, not the category's; a warm page with "in stock" chosen reads
no stock but its cards'.
"""

import random

import pytest
from django.core.cache import caches
from django.test import Client

from catalog.listings import query
from catalog.models import CatalogVersion, Category, Pricing, Product
from catalog.transfer.generate import GENRES, populate
from core.mongo import get_collection
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.catalog.test_facets import assert_counts_are_plain, conditions
from tests.support.database import built_once
from tests.support.examined import documents_examined
from tests.support.products import make_product

PAGE_SIZE = 4


@pytest.fixture
def catalog(settings, monkeypatch):
    """A generated catalog of 300 albums in 110 categories (about 30 in ``top-0``), made more
    varied (a few with two genres, prices in every band, a few sold out), pages of 4 products
    and the windows of issue dates from 8 products (``WINDOWED_FROM``, 200 in the shop); built
    once per test process (``built_once``)."""
    settings.CATALOG_PAGE_SIZE = PAGE_SIZE
    monkeypatch.setattr(query, "WINDOWED_FROM", 8)
    return built_once("faceted-listing", _build_catalog)


def _build_catalog():
    populate(300, categories=110, stock=3, seed=17)
    top = Category.objects.get_by_slug("top-0")
    skus = [d["sku"] for d in get_collection("products").find({"listed_in": top.pk}, {"sku": 1}).sort("sku", 1)]
    rng = random.Random(3)
    for number, sku in enumerate(skus):
        if number % 4 == 0 or number % 7 == 0:
            product = Product.objects.get(sku=sku)
            if number % 4 == 0:
                product.details["genre"] = sorted(rng.sample(GENRES, 2))
            if number % 7 == 0:
                cents = rng.choice([299, 1999, 2500])
                product.pricing = Pricing.from_prices(cents, cents)
            product.save()
    plain_skus = [s for s in skus if not get_collection("products").find_one({"sku": s, "variants.0": {"$exists": 1}})]
    for sku in plain_skus[2:12:3]:
        Inventory.objects.set_stock(sku, 0)
    return {"top": top, "skus": skus, "plain": plain_skus}


def listed(client, url, params):
    """The SKUs of every page of ``url`` with ``params``, in order, and the count shown."""
    found, number = [], 1
    while True:
        response = client.get(url, {**params, "page": number})
        assert response.status_code == 200
        page = response.context["page"]
        found += [p.sku for p in page]
        if not page.has_next():
            return found, page.paginator.count
        number += 1


def plain_order(base, chosen):
    cursor = get_collection("products").find({"$and": conditions(base, chosen)}, {"sku": 1})
    return [d["sku"] for d in cursor.sort([("details.issue_date", -1), ("_id", 1)])]


def choices(top):
    some = get_collection("products").find_one({"listed_in": top.pk, "variants.0": {"$exists": 1}})
    artist = get_collection("products").find_one({"listed_in": top.pk})["details"]["artist"]
    genre = get_collection("products").find_one({"listed_in": top.pk})["details"]["genre"][0]
    assert some is not None  # a product with formats
    return [
        {"price": ["10-20"]},
        {"price": ["5-10", "10-20"], "in_stock": True},
        {"price": ["0-5", "20-"]},
        {"artist": [artist]},
        {"genre": [genre]},
        {"genre": ["Jazz", "Rock"]},  # several values of a facet of lists: counted, not summed
        {"format": ["Vinyl"]},
        {"type": ["Audio Album"], "in_stock": True},
        {"in_stock": True},
    ]


def _values_at(document, path):
    """The values at the dotted ``path`` of ``document``, through lists (MongoDB's reach)."""
    found = [document]
    for key in path.split("."):
        found = [v for d in found if isinstance(d, dict) and key in d
                 for v in (d[key] if isinstance(d[key], list) else [d[key]])]
    return found


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _matches(document, query):
    """Whether ``document`` matches ``query``, in the forms ``conditions`` writes: ``$and``,
    ``$or``, a value, ``$in``, ``$nin``, ``$gte`` and ``$lt`` (numbers)."""
    for key, condition in query.items():
        if key in ("$and", "$or"):
            found = (_matches(document, q) for q in condition)
            if not (all(found) if key == "$and" else any(found)):
                return False
            continue
        values = _values_at(document, key)
        if not isinstance(condition, dict):
            condition = {"$in": [condition]}
        for operator, operand in condition.items():
            if operator == "$in" and not any(v in operand for v in values):
                return False
            if operator == "$nin" and any(v in operand for v in values):
                return False
            if operator == "$gte" and not any(_number(v) and v >= operand for v in values):
                return False
            if operator == "$lt" and not any(_number(v) and v < operand for v in values):
                return False
    return True


def counted_in_memory(base):
    """A ``plain`` for ``assert_counts_are_plain``: the products matching ``base`` read once,
    each list of filters counted over them in this process, as ``count_documents`` of their
    ``$and`` counts (the dozens of plain counts of a page, one round trip each, took most of
    this file's time)."""
    products = list(get_collection("products").find({"$and": base}))

    def plain(filters):
        return sum(1 for p in products if _matches(p, {"$and": filters}))

    return plain


def assert_counted_in_memory_as_the_server_counts(top):
    """``counted_in_memory`` counts as ``count_documents`` does, for every form the checks use."""
    base = [{"listed_in": top.pk}]
    plain = counted_in_memory(base)
    for chosen in choices(top):
        for leave_out in (None, *chosen):
            filters = conditions(base, chosen, leave_out)
            assert plain(filters) == get_collection("products").count_documents({"$and": filters}), filters


def assert_pages_are_plain(client, top):
    base = [{"listed_in": top.pk}]
    plain = counted_in_memory(base)
    for chosen in choices(top):
        assert_counts_are_plain("/c/top-0/", base, chosen, client, plain=plain)
        params = {code: ("1" if code == "in_stock" else values) for code, values in chosen.items()}
        skus, count = listed(client, "/c/top-0/", params)
        expected = plain_order(base, chosen)
        assert count == len(expected), chosen
        assert skus == expected, chosen


def test_faceted_pages_equal_plain_queries_after_edits_and_stock_changes(catalog, settings):
    # Pages of 12 (over 100 products listed in top-0: a walk of pages of 4 was 988 requests,
    # most of this file's time); still several windowed pages and a last one sorted.
    settings.CATALOG_PAGE_SIZE = 12
    top, reader = catalog["top"], Client()
    assert_counted_in_memory_as_the_server_counts(top)
    assert_pages_are_plain(reader, top)
    # Edits: a price across bands, a genre, an issue date, a product moved in, one deleted;
    # stock: one sold out, one back.
    first = Product.objects.get(sku=catalog["plain"][0])
    first.pricing = Pricing.from_prices(450, 450)
    first.details["genre"] = ["Soul", "Jazz"]
    first.save()
    dated = Product.objects.get(sku=catalog["plain"][1])
    dated.details["issue_date"] = dated.details["issue_date"].replace(year=2026, month=1)
    dated.save()
    newcomer = Product.objects.get(sku=get_collection("products").find_one({"listed_in": {"$ne": top.pk}})["sku"])
    newcomer.categories = [top.pk]
    newcomer.save()
    Product.objects.get(sku=catalog["plain"][3]).delete()
    Inventory.objects.set_stock(catalog["plain"][4], 0)
    Inventory.objects.set_stock(catalog["plain"][2], 5)
    assert_pages_are_plain(reader, top)  # at once, in the process that wrote
    caches["default"].clear()
    CatalogVersion.objects.bump()
    assert_pages_are_plain(Client(), top)  # from the kept documents


def cold(url):
    """``url`` requested with every cached read gone (the kept counts current): its operations."""
    caches["default"].clear()
    CatalogVersion.objects.bump()
    with count_operations() as ops:
        assert Client().get(url).status_code == 200
    return ops


@pytest.mark.parametrize("params", [
    "price=10-20", "price=5-10&price=10-20&in_stock=1", "genre=Rock", "type=Audio+Album",
])
def test_a_cold_faceted_page_examines_about_what_it_shows(catalog, made_facet_indexes, params):
    top = catalog["top"]
    listed_in_top = get_collection("products").count_documents({"listed_in": top.pk})
    cold("/c/top-0/")  # the kept counts written
    ops = cold(f"/c/top-0/?{params}")
    examined = documents_examined(ops, "products")
    # the page's windows (a few dozen products), its cards, the sold-out few; never a pass
    # over the category's products (the counts with the choice, then the listing: over
    # twice the category's, before)
    assert examined < listed_in_top / 2, (examined, listed_in_top, ops.operations)
    assert not any("$facet" in repr(command) for (name, _op), command in zip(ops.operations, ops.commands)
                   if name == "products"), ops.operations


def test_an_artist_is_read_from_its_index(catalog, made_facet_indexes):
    top = catalog["top"]
    artist = get_collection("products").find_one({"listed_in": top.pk})["details"]["artist"]
    held = get_collection("products").count_documents({"listed_in": top.pk, "details.artist": artist})
    cold("/c/top-0/")
    ops = cold(f"/c/top-0/?artist={artist}")
    # its counts (kept, or one aggregation of its products on the facet's index), the page
    # (the same products), their cards, the in-stock count (from the sold-out SKUs: twice)
    sold = len(Product.facets.sold_out_skus())
    assert documents_examined(ops, "products") <= 2 * held + 2 * sold + PAGE_SIZE, ops.operations


def test_a_warm_page_with_in_stock_chosen_reads_only_the_versions(catalog, settings):
    settings.STOCK_SHOWN_SECONDS = 2  # the shop's (the tests' is 0)
    reader = Client()
    for url in ("/c/top-0/?price=5-10&price=10-20&in_stock=1", "/c/top-0/?genre=Rock&in_stock=1"):
        reader.get(url)
        with count_operations() as ops:
            assert reader.get(url).status_code == 200
        # the sold-out SKUs kept as the page's stock is (inventory/shown.py): no read of them
        assert ops.operations == [("catalog_versions", "find")], (url, ops.operations)


def test_a_stock_write_shows_at_once_in_the_in_stock_choice(make_tree, settings):
    settings.STOCK_SHOWN_SECONDS = 2  # kept, and forgotten by the write
    music = make_tree({"Music": {}})["Music"]
    for sku in ("A", "B"):
        make_product(f"Album {sku}", sku=sku, categories=[music.pk])
    Inventory.objects.ensure_stock(["A", "B"], 2)
    reader = Client()
    assert sorted(p.sku for p in reader.get("/c/music/?in_stock=1").context["page"]) == ["A", "B"]
    Inventory.objects.set_stock("A", 0)  # the kept sold-out SKUs forgotten
    assert [p.sku for p in reader.get("/c/music/?in_stock=1").context["page"]] == ["B"]
    Inventory.objects.restock("A", 1)
    assert sorted(p.sku for p in reader.get("/c/music/?in_stock=1").context["page"]) == ["A", "B"]


def test_a_page_kept_whole_with_in_stock_chosen_shows_a_restock_of_what_it_left_out(make_tree, settings):
    """The page kept whole as HTML (catalog/store/pages.py) holds only the SKUs it shows: the
    sold-out SKUs it left out are a kept value of it, so a restock of one (no SKU it shows
    changes, no version moves) shows on the next request."""
    settings.STOCK_SHOWN_SECONDS = 600  # nothing lapses by itself during the test
    music = make_tree({"Music": {}})["Music"]
    for sku in ("A", "B"):
        make_product(f"Album {sku}", sku=sku, categories=[music.pk])
    Inventory.objects.ensure_stock(["A", "B"], 2)
    Inventory.objects.set_stock("A", 0)
    reader = Client()
    reader.get("/c/music/?in_stock=1")
    reader.get("/c/music/?in_stock=1")  # kept whole
    with count_operations() as ops:
        response = reader.get("/c/music/?in_stock=1")
    assert ops.operations == [("catalog_versions", "find")]
    assert response.context is None  # answered from the page kept whole: no template rendered
    assert b"Album B" in response.content and b"Album A" not in response.content
    Inventory.objects.restock("A", 1)
    response = reader.get("/c/music/?in_stock=1")
    assert b"Album A" in response.content and b"Album B" in response.content
