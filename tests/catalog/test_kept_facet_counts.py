"""A category's facet counts kept in the database per issue decade (``FacetCount.objects``,
``catalog/listings/facet_count_manager.py``): a cold cache reads them instead of counting the
category's products; every write that changes what they count makes them counted again.

The counts shown are checked against plain counts (``tests/catalog/test_facets.py``) after
each write, with the cache emptied first, so that they come from the kept documents.
"""


import pytest
from django.core.cache import caches
from django.test import Client

from catalog.transfer import generate
from catalog.transfer.generate import populate
from catalog.models import CatalogVersion, Category, FacetCount, Product, ProductType
from core.mongo import get_collection
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.catalog.test_facets import assert_counts_are_plain
from tests.support.products import make_product
from tests.support.threads import save_during_a_count


@pytest.fixture
def shelf(make_tree):
    made = make_tree({"Music": {"Rock": {}, "Jazz": {}}})
    rows = [("A", "AC/DC", ["Rock"], 499, "Rock"), ("B", "AC/DC", ["Metal"], 899, "Rock"),
            ("C", "Miles", ["Jazz"], 1299, "Jazz"), ("D", "Miles", ["Jazz", "Rock"], 2499, "Jazz"),
            ("E", "Blur", ["Rock"], 999, "Rock")]
    for sku, artist, genre, cents, category in rows:
        make_product(f"Album {sku}", sku=sku, artist=artist, genre=genre, list_cents=cents,
                     categories=[made[category].pk])
    Inventory.objects.ensure_stock([r[0] for r in rows], 4)
    return made


def cold(url):
    """Request ``url`` with every cached read gone (an emptied cache and a new epoch, as a
    restarted worker of a shared cache would see): ``(response, operations)``."""
    caches["default"].clear()
    CatalogVersion.objects.bump()
    with count_operations() as ops:
        response = Client().get(url)
    assert response.status_code == 200
    return response, ops.operations


def values(response, code):
    group = next((g for g in response.context["facets"].groups if g["code"] == code), {"values": []})
    return {item["value"]: item["count"] for item in group["values"]}


def test_a_cold_cache_reads_the_kept_counts_not_the_products(shelf):
    first, counted = cold("/c/music/")
    assert ("facet_counts", "find") in counted
    assert get_collection("facet_counts").count_documents({"category": shelf["Music"].pk}) >= 1
    again, read = cold("/c/music/")
    # the kept counts are current: no read of the products for them (only the page's order
    # and its cards), no write
    assert read.count(("products", "find")) == counted.count(("products", "find")) - 1, (counted, read)
    assert [op for op in read if op[0] == "facet_counts"] == [("facet_counts", "find")], read
    assert values(again, "genre") == values(first, "genre") == {"Rock": 3, "Jazz": 2, "Metal": 1}
    assert_counts_are_plain("/c/music/", [{"listed_in": shelf["Music"].pk}], {})


def test_kept_counts_follow_every_write_that_changes_them(shelf):
    base = [{"listed_in": shelf["Music"].pk}]
    cold("/c/music/")  # kept
    edits = [
        lambda: _edit("A", genre=["Soul"]),                      # a value, in one decade
        lambda: _edit("B", list_cents=2999),                     # a price band
        lambda: _edit("C", issue_year=1961),                     # another decade
        lambda: make_product("Album F", sku="F", genre=["Blues"], categories=[shelf["Jazz"].pk]),  # joins
        lambda: Product.objects.get(sku="E").delete(),           # leaves
    ]
    for edit in edits:
        edit()
        caches["default"].clear()
        assert_counts_are_plain("/c/music/", base, {})
        assert_counts_are_plain("/c/music/", base, {"genre": ["Rock"]})
        # the counts given a choice (the parts' ``by``), with "in stock" taken away live
        assert_counts_are_plain("/c/music/", base, {"price": ["5-10", "20-"]})
        assert_counts_are_plain("/c/music/", base, {"artist": ["Miles"], "in_stock": True})
        assert_counts_are_plain("/c/music/", base, {"genre": ["Jazz", "Rock"]})


def _edit(sku, genre=None, list_cents=None, issue_year=None):
    import datetime

    from catalog.models import Pricing

    product = Product.objects.get(sku=sku)
    if genre is not None:
        product.details["genre"] = genre
    if list_cents is not None:
        product.pricing = Pricing.from_prices(list_cents, list_cents)
    if issue_year is not None:
        product.details["issue_date"] = datetime.datetime(issue_year, 5, 1, tzinfo=datetime.UTC)
    product.save()


def test_a_moved_subtree_makes_the_categories_above_it_counted_again(make_tree):
    made = make_tree({"Music": {"Rock": {"Punk": {}}}, "Video": {}})
    make_product("Album P", sku="P", genre=["Punk"], categories=[made["Punk"].pk])
    make_product("Film V", sku="V", type="Film", genre=["Drama"], actor=["Ada"], categories=[made["Video"].pk])
    for slug in ("/c/music/", "/c/rock/", "/c/video/"):
        cold(slug)  # kept
    Category.writes.move(made["Punk"], made["Video"])
    caches["default"].clear()
    assert values(Client().get("/c/music/"), "genre") == {}
    assert values(Client().get("/c/rock/"), "genre") == {}
    assert values(Client().get("/c/video/"), "genre") == {"Drama": 1, "Punk": 1}


def test_a_changed_product_type_forgets_the_kept_counts(shelf):
    first, _ops = cold("/c/music/")
    assert values(first, "type") == {"Audio Album": 5}
    album = ProductType.objects.by_name("Audio Album")
    album.name = "Record"
    ProductType.objects.save_type(album)  # rewrites every album's type
    assert get_collection("facet_counts").count_documents({}) == 0
    renamed, _ops = cold("/c/music/")
    assert values(renamed, "type") == {"Record": 5}


def test_a_part_with_too_many_values_is_counted_not_kept(shelf, monkeypatch):
    from catalog.listings import facet_count_manager as facet_counts

    monkeypatch.setattr(facet_counts, "MOST_VALUES_KEPT", 2)
    first, _ops = cold("/c/music/")
    assert get_collection("facet_counts").count_documents({"total": {"$gt": 0}}) == 0  # the empty parts are
    again, read = cold("/c/music/")
    assert ("facet_counts", "find") in read
    assert values(again, "genre") == values(first, "genre")


def test_populatedb_keeps_the_large_categories_counts(monkeypatch):
    monkeypatch.setattr(generate, "KEEP_FACETS_FROM", 20)
    populate(120, categories=110, stock=2, seed=3)
    top = Category.objects.get_by_slug("top-0")
    assert FacetCount.objects.collection.count_documents({"category": top.pk}) >= 1
    response, read = cold("/c/top-0/")
    # no shopper's request counts a large category: its kept counts are current
    assert [op for op in read if op[0] == "facet_counts"] == [("facet_counts", "find")], read
    assert_counts_are_plain("/c/top-0/", [{"listed_in": top.pk}], {})


def test_the_kept_counts_are_read_by_id_not_by_scanning_every_category(shelf):
    from django.db import connections

    from catalog.listings.facet_parts import PARTS

    for slug in ("/c/music/", "/c/rock/", "/c/jazz/"):
        cold(slug)  # three categories' parts kept
    assert get_collection("facet_counts").count_documents({}) == 3 * len(PARTS)
    caches["default"].clear()
    CatalogVersion.objects.bump()
    with count_operations() as ops:
        Client().get("/c/rock/")
    read, = [command for (collection, _op), command in zip(ops.operations, ops.commands)
             if collection == "facet_counts"]
    query = {"find": "facet_counts", "filter": read["filter"]}
    stats = connections["default"].database.command("explain", query, verbosity="executionStats")
    assert stats["executionStats"]["totalDocsExamined"] == len(PARTS)  # the category's parts only


def test_a_write_of_more_scopes_than_the_limit_bumps_the_epoch_and_the_relistings(shelf, settings):
    """A sync naming more scopes than ``CATALOG_VERSIONS_BUMP_LIMIT`` writes the epoch and the
    relisting of its categories, not each scope; the pages and the kept counts still follow."""
    base = [{"listed_in": shelf["Music"].pk}]
    cold("/c/music/")  # counts kept
    versions = get_collection("catalog_versions")
    before = {d["name"]: d["token"] for d in versions.find()}
    settings.CATALOG_VERSIONS_BUMP_LIMIT = 3
    product = Product.objects.get(sku="A")
    product.details["genre"] = ["Soul"]
    Product.writes.sync([product])
    after = {d["name"]: d["token"] for d in versions.find()}
    bumped = {name for name, token in after.items() if before.get(name) != token}
    listed = sorted(str(i) for i in Product.objects.get(sku="A").listed_in)
    # and the deals' counts kept per saving (``savings_counts``), the searches' summaries
    # (``search_summaries``)
    assert bumped == {"catalog", "savings-kept", "search-kept", *(f"relisted:{i}" for i in listed)}
    assert_counts_are_plain("/c/music/", base, {})
    assert values(Client().get("/c/music/"), "genre")["Soul"] == 1


def recounts(ops):
    """The reads of products that count a category's parts again (``_count_parts``)."""
    return [command for (name, op), command in zip(ops.operations, ops.commands)
            if name == "products" and op == "find" and "listed_in" in ((command or {}).get("filter") or {})]


def test_a_save_moves_the_kept_counts_rather_than_leaving_a_decade_to_count(shelf):
    base = [{"listed_in": shelf["Music"].pk}]
    cold("/c/music/")  # kept
    edits = [
        lambda: _edit("A", genre=["Soul"]),            # a value
        lambda: _edit("B", list_cents=2999),           # a price band
        lambda: _edit("C", issue_year=1961),           # from one decade to another
        lambda: _edit("E", genre=["Rock", "Pop"]),     # a second value of a list
    ]
    for edit in edits:
        edit()
        caches["default"].clear()
        with count_operations() as ops:
            assert_counts_are_plain("/c/music/", base, {})
        assert recounts(ops) == [] and ("facet_counts", "update") not in ops.operations, ops.operations
        assert_counts_are_plain("/c/music/", base, {"genre": ["Rock"]})
        assert_counts_are_plain("/c/music/", base, {"price": ["5-10", "20-"]})
        assert_counts_are_plain("/c/music/", base, {"artist": ["Miles"], "in_stock": True})
    # a product leaving that held two values of a conditioned facet: counted again, right
    _edit("E", genre=["Rock"])
    caches["default"].clear()
    assert_counts_are_plain("/c/music/", base, {})
    assert_counts_are_plain("/c/music/", base, {"genre": ["Rock"]})


def test_a_count_racing_a_save_is_not_kept_where_the_save_moves_the_counts(shelf, monkeypatch):
    """A reader counts a decade while a save of a product in it runs: the count holds the
    save's change, so it must not be kept at the versions from before the save, which the
    save then moves by its change (counted twice). Fails without the reader's second read of
    the versions (``kept_facet_parts``)."""
    from catalog.listings.facet_count_manager import FacetCountManager
    from catalog.listings.facet_parts import FacetPartsMixin, PartsShift

    base = [{"listed_in": shelf["Music"].pk}]
    cold("/c/music/")  # kept
    # A twin of A joins (its decade is counted again): what A held before the save is then
    # still in a count made after it, so moving that count by the save goes unnoticed.
    make_product("Album G", sku="G", artist="AC/DC", genre=["Rock"], list_cents=499, categories=[shelf["Rock"].pk])
    join = save_during_a_count(monkeypatch, lambda: _edit("A", genre=["Soul"]),
                               count=(FacetPartsMixin, "_count_parts"), keep=(FacetCountManager, "keep"),
                               shift=PartsShift)
    caches["default"].clear()
    assert Client().get("/c/music/").status_code == 200
    join()
    monkeypatch.undo()
    caches["default"].clear()
    assert_counts_are_plain("/c/music/", base, {})
    assert_counts_are_plain("/c/music/", base, {"genre": ["Soul"]})


def test_two_saves_of_one_decade_at_once_leave_it_counted_again(shelf, monkeypatch):
    """A second save of a product of the same decade, made while the first is being written:
    it claims the decade from the first's new tokens, so it may move only parts kept at those
    (none here); the first's final claim then fails (the second's tokens came between) and it
    moves nothing: the decade is counted again, right."""
    from catalog.listings import facet_parts
    from catalog.store import writes

    base = [{"listed_in": shelf["Music"].pk}]
    cold("/c/music/")  # kept
    shift_parts, made = facet_parts.shift_parts, []

    def with_a_second_save(before, after, fields):
        shift = shift_parts(before, after, fields)
        made.append(shift)
        if len(made) == 1:
            _edit("B", genre=["Soul"])  # while A's save has claimed the decade
        return shift

    monkeypatch.setattr(writes, "shift_parts", with_a_second_save)
    _edit("A", list_cents=2999)
    monkeypatch.undo()
    assert made[0] is not None and made[1] is not None
    assert made[1].first[next(iter(made[0].names))] == made[0].claimed[next(iter(made[0].names))]
    caches["default"].clear()
    with count_operations() as ops:
        assert_counts_are_plain("/c/music/", base, {})
    assert recounts(ops), ops.operations  # counted again
    assert_counts_are_plain("/c/music/", base, {"genre": ["Soul"]})
    assert_counts_are_plain("/c/music/", base, {"price": ["20-"]})
