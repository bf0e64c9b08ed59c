"""Pages of a large category sorted by price or by title, read from its kept order counts
(``OrderCount.objects``, ``ListingManager.kept_order``): every page equals the whole sort of
the category's products (same products, same order, ties included) after any edit, and a
cold page examines about the products it shows, not every product of the category."""

from io import StringIO

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.test import Client, override_settings

from catalog.listings.order_count_manager import CHUNK, OrderCountManager
from catalog.listings.query import SORTS, WINDOWED_FROM
from catalog.models import Category, OrderCount, Pricing, Product
from catalog.transfer.generate import populate
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.support.database import built_once
from tests.support.examined import documents_examined
from tests.support.products import make_product, set_price

#: Rock lists this many albums (a fifth in Rock itself, the others in Metal below it).
LISTED = WINDOWED_FROM + 100
#: Titles' first characters: upper and lower case, accented, a digit (binary order).
INITIALS = ["A", "B", "c", "D", "\u00c9", "7", "Z", "m", "Q", "a", "\u00d6", "K"]
SORTED = ("price", "-price", "title")


def retail(n):
    """Album ``n``'s price: 5.00 to 13.99 over about ten price bands, every sixth at 7.77 (ties),
    two free (the band of no price, which sorts first)."""
    if n in (3, 150):
        return 0
    return 777 if n % 6 == 0 else 500 + (n * 37) % 900


def album(n, category):
    """Album ``n`` in ``category``: 36 titles among all of them (ties), 12 title windows."""
    return Product(sku=f"OC-{n:03d}", type="Audio Album", title=f"{INITIALS[n % 12]}lbum {n % 9}",
                   categories=[category.pk], details={"artist": "Artist", "genre": ["Rock"], "issue_date": None},
                   pricing=Pricing.from_prices(1400, retail(n)))


@pytest.fixture
def tree(make_tree, settings):
    """Music > Rock > Metal, Music > Jazz, Video; ``LISTED`` albums listed in Rock; the
    reader's own cache, empty. Built once per test process (``built_once``)."""
    def build():
        tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}, "Video": {}})
        Product.writes.sync([album(n, tree["Rock"] if n % 5 == 0 else tree["Metal"]) for n in range(LISTED)])
        Inventory.objects.ensure_stock([f"OC-{n:03d}" for n in range(LISTED)], 5)
        return tree

    tree = built_once("order-counts", build)
    cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "order-counts"}}
    with override_settings(CACHES=cache):
        caches["default"].clear()
        yield tree


def whole_sort(category, sort):
    """The ``_id``\\ s of ``category``'s products sorted by ``sort`` by the server, whole."""
    cursor = Product.objects.collection.find({"listed_in": category.pk}, {"_id": 1}).sort(SORTS[sort])
    return [d["_id"] for d in cursor]


def assert_every_page_is_the_whole_sort(*categories):
    """Every page of 24 of each category in each sort: read from the kept counts (only the
    pages that reach the free albums, which no range reads, fall back to the whole sort),
    and through the listing the view uses, equal to the whole sort."""
    for category in categories:
        for sort in SORTED:
            expected = whole_sort(category, sort)
            listing = Product.listings.listing([category.pk], sort)
            assert len(listing) == len(expected) > WINDOWED_FROM
            fell_back = []
            for start in range(0, len(expected), 24):
                stop = min(start + 24, len(expected))
                documents = Product.listings.kept_order({"listed_in": category.pk}, SORTS[sort], start, stop)
                if documents is None:
                    fell_back.append(start)
                else:
                    assert [d["_id"] for d in documents] == expected[start:stop], (category.name, sort, start)
                shown = [p.pk for p in listing[start:stop]]
                assert shown == expected[start:stop], (category.name, sort, start)
            priced_free = {d["_id"] for d in Product.objects.collection.find(
                {"listed_in": category.pk, "pricing.retail": 0}, {"_id": 1})}
            free = [i for i, d in enumerate(expected) if d in priced_free]
            reaching = {start for start in range(0, len(expected), 24) for i in free if start <= i < start + 24}
            assert set(fell_back) == (reaching if sort != "title" else set()), (category.name, sort)


def test_every_page_by_price_and_title_is_the_whole_sort(tree):
    assert_every_page_is_the_whole_sort(tree["Rock"], tree["Metal"], tree["Music"])


def test_every_page_is_the_whole_sort_after_edits_deletes_adds_and_moves(tree):
    rock, metal, music, jazz, video = (tree[n] for n in ("Rock", "Metal", "Music", "Jazz", "Video"))
    assert_every_page_is_the_whole_sort(rock, metal)  # kept now
    set_price("OC-011", 1390, 1400)  # from 9.07 across several bands to the dearest
    set_price("OC-013", 501, 1400)  # to the cheapest (a tie with no one)
    set_price("OC-012", 777, 1400)  # into the ties at 7.77
    renamed = Product.objects.get(sku="OC-014")
    renamed.title = "Zulu"  # from "clbum 5": another window, among the Z titles
    renamed.save()
    tied = Product.objects.get(sku="OC-021")
    tied.title = "Blbum 0"  # into another title's ties
    tied.save()
    assert_every_page_is_the_whole_sort(rock, metal, music)
    Product.objects.get(sku="OC-016").delete()
    make_product("\u00c9lan", categories=[metal.pk], list_cents=1400, retail_cents=777, sku="OC-NEW")
    moved = Product.objects.get(sku="OC-017")
    moved.categories = [video.pk]  # leaves Metal, Rock and Music
    moved.save()
    for n in range(30):  # Jazz with its own albums, then moved under Rock
        make_product(f"Jazz {n}", categories=[jazz.pk], list_cents=1400, retail_cents=600 + 20 * n,
                     sku=f"OC-J{n:02d}")
    assert_every_page_is_the_whole_sort(rock, metal, music)
    Category.writes.move(Category.objects.get(pk=jazz.pk), Category.objects.get(pk=rock.pk))
    assert_every_page_is_the_whole_sort(rock, metal, music)


@pytest.mark.parametrize("sort", SORTED)
def test_a_cold_page_examines_its_chunks_not_the_category(tree, sort):
    rock, reader = tree["Rock"], Client()
    reader.get("/c/rock/")  # the category, its count and its facet counts: kept
    OrderCount.objects.recount_all()  # as populatedb and load_catalog leave them
    with count_operations() as ops:
        response = reader.get(f"/c/rock/?sort={sort}&page=5")
    assert [p.pk for p in response.context["page"]] == whole_sort(rock, sort)[96:120]
    # The order: one or two chunks of about CHUNK albums (three when a page straddles two
    # chunks' ends; ties never cut); then the page's 24 cards by id. The whole sort: every
    # one of the LISTED albums, then the cards.
    examined = documents_examined(ops, "products")
    assert examined <= 24 + 3 * (CHUNK + 12) < LISTED, (examined, ops.operations)
    assert documents_examined(ops, "order_counts") == 1


def test_a_price_edit_recounts_only_the_bands_it_moves_across(tree):
    rock = tree["Rock"]
    OrderCount.objects.recount_all()
    set_price("OC-001", 560, 1400)  # 5.37 to 5.60: one band further
    with count_operations() as ops:
        chunks = OrderCount.objects.chunks(rock.pk, "price")
    assert sum(c.n for c in chunks) == LISTED
    assert documents_examined(ops, "products") < LISTED / 4, ops.operations
    with count_operations() as ops:  # kept over: nothing counted
        OrderCount.objects.chunks(rock.pk, "price")
    assert ("products", "aggregate") not in ops.operations
    assert_every_page_is_the_whole_sort(rock)


def test_a_count_kept_after_a_write_it_missed_is_counted_again(tree, monkeypatch):
    """A reader counts, a writer moves a product across bands and bumps its versions, then
    the reader keeps its count: kept under the versions it read before counting, so the next
    reader counts those bands again and every page stays the whole sort."""
    rock = tree["Rock"]
    keep = OrderCountManager._keep

    def write_then_keep(self, *args):
        monkeypatch.setattr(OrderCountManager, "_keep", keep)
        set_price("OC-007", 1399, 1400)
        set_price("OC-008", 500, 1400)
        renamed = Product.objects.get(sku="OC-009")
        renamed.title = "0 first"
        renamed.save()
        return keep(self, *args)

    monkeypatch.setattr(OrderCountManager, "_keep", write_then_keep)
    OrderCount.objects.chunks(rock.pk, "price")
    monkeypatch.setattr(OrderCountManager, "_keep", write_then_keep)
    OrderCount.objects.chunks(rock.pk, "title")
    assert_every_page_is_the_whole_sort(rock)


def test_a_category_whose_counts_are_missing_or_relisted_is_counted_whole(tree):
    rock = tree["Rock"]
    OrderCount.objects.forget_all()
    assert_every_page_is_the_whole_sort(rock)  # counted by its first page, then kept
    assert OrderCount.objects.collection.count_documents({"category": rock.pk}) == 2
    Product.writes.delete_all()
    assert OrderCount.objects.collection.count_documents({}) == 0


def test_populate_keeps_the_order_counts_of_every_category():
    populate(60, categories=200, stock=1)
    top = Category.objects.get(slug="top-0")
    with count_operations() as ops:
        chunks = OrderCount.objects.chunks(top.pk, "price")
    assert sum(c.n for c in chunks) == Product.objects.collection.count_documents({"listed_in": top.pk})
    assert not any(name == "products" for name, _ in ops.operations), ops.operations


def test_recount_listings_rebuilds_the_kept_counts(tree):
    rock = tree["Rock"]
    OrderCount.objects.forget_all()
    out = StringIO()
    call_command("recount_listings", stdout=out)
    assert "Order counts:" in out.getvalue() and "Listing counts:" in out.getvalue()
    with count_operations() as ops:
        OrderCount.objects.chunks(rock.pk, "title")
    assert ("products", "aggregate") not in ops.operations
    assert_every_page_is_the_whole_sort(rock)


def test_a_write_bumps_only_the_count_bands_and_windows_a_product_leaves_and_joins():
    from bson import ObjectId

    from catalog.store.cache import price_count_band
    from catalog.store.writes import product_scopes

    a, b = ObjectId(), ObjectId()
    before = {"sku": "S", "listed_in": [a], "title": "Alpha", "retail": 1000}
    dearer = {**before, "retail": 1500}
    counted = [n for n in product_scopes([(before, dearer)]) if n.startswith(f"prices:{a}:n")]
    assert counted == sorted(f"prices:{a}:n{price_count_band(c)}" for c in (1000, 1500))  # not between
    renamed = {**before, "title": "Omega", "listed_in": [a, b]}
    names = product_scopes([(before, renamed)])
    assert {f"titles:{a}:Alp", f"titles:{a}:Ome", f"titles:{b}:Alp", f"titles:{b}:Ome",
            f"prices:{b}:n{price_count_band(1000)}"} <= set(names)
    assert f"prices:{a}:n{price_count_band(1000)}" not in names  # stayed at its price in a
