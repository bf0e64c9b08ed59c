"""Kept counts of the products each category lists (``ListingCount.objects``) and the
newest-first page read from windows of issue dates: a cold category page matches about the
products it shows, not every product of the category, and its count is always exact."""

import datetime

import pytest
from django.test import Client, override_settings

from catalog.transfer.generate import populate
from catalog.listings.query import WINDOWED_FROM
from catalog.listings import count_manager as counts
from catalog.models import Category, ListingCount, Pricing, Product
from inventory.models import Inventory
from core import clock
from core.mongo.counter import count_operations
from tests.support.admin import album_data
from tests.support.examined import documents_examined
from tests.support.products import make_product
from tests.support.threads import run_together


def album(sku, category, days_ago=None):
    """An unsaved album in ``category``, issued ``days_ago`` days before now (None: undated)."""
    issued = None if days_ago is None else clock.now() - datetime.timedelta(days=days_ago)
    return Product(sku=sku, type="Audio Album", title=f"Album {sku}", categories=[category.pk],
                   details={"artist": "Artist", "genre": ["Rock"], "issue_date": issued},
                   pricing=Pricing.from_prices(1000, 1000))


def kept(category):
    """The raw ``listing_counts`` document of ``category``."""
    return ListingCount.objects.collection.find_one({"_id": category.pk})


def counted(category):
    """The number of products ``category`` lists, counted over the products."""
    return Product.objects.collection.count_documents({"listed_in": category.pk})


def assert_kept_exactly(*categories):
    for category in categories:
        document = kept(category)
        assert counts._trusted(document), document
        assert document["listed"] == counted(category), category.name


@pytest.fixture
def tree(make_tree):
    return make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}, "Video": {}})


def test_saves_syncs_moves_and_deletes_keep_every_count_exact(tree):
    music, rock, metal, jazz, video = (tree[n] for n in ("Music", "Rock", "Metal", "Jazz", "Video"))
    first = make_product("One", categories=[metal.pk])
    make_product("Two", categories=[jazz.pk])
    assert [kept(c)["listed"] for c in (music, rock, metal, jazz)] == [2, 1, 1, 1]
    Product.writes.sync([album("S-1", rock), album("S-2", video)])
    assert_kept_exactly(music, rock, metal, jazz, video)
    assert kept(rock)["listed"] == 2
    first.categories = [video.pk]  # moved by staff: it leaves Metal, Rock and Music
    first.save()
    assert_kept_exactly(music, rock, metal, video)
    assert kept(video)["listed"] == 2 and kept(metal)["listed"] == 0
    Category.writes.move(rock, video)  # Rock (with S-1) goes under Video
    assert_kept_exactly(music, rock, video)
    assert kept(music)["listed"] == 1 and kept(video)["listed"] == 3
    Product.objects.get(sku="S-1").delete()
    assert_kept_exactly(rock, video)
    assert kept(video)["listed"] == 2
    Product.writes.delete_all()
    assert ListingCount.objects.collection.count_documents({}) == 0


def test_a_save_that_keeps_its_categories_does_not_recount(tree):
    product = make_product("One", categories=[tree["Metal"].pk])
    product.title = "Renamed"
    with count_operations() as ops:
        product.save()
    assert not any(name == "listing_counts" for name, _ in ops.operations), ops.operations


def test_a_cold_category_page_counts_nothing_and_reads_a_window(tree):
    rock = tree["Rock"]
    listed = WINDOWED_FROM + 50
    Product.writes.sync([album(f"W-{n:03d}", tree["Metal"], days_ago=3 * n) for n in range(listed)])
    Inventory.objects.ensure_stock([f"W-{n:03d}" for n in range(listed)], 5)
    with count_operations() as ops:
        response = Client().get("/c/rock/")
    assert response.status_code == 200
    assert response.context["page"].paginator.count == listed
    assert [p.sku for p in response.context["page"]] == [f"W-{n:03d}" for n in range(24)]
    # The count is one kept document; the page's order a window of 90 days (30 products),
    # not 250, then its 24 cards by id; the facet counts (one aggregation, cached) examine
    # the category's products once.
    assert ("products", "count") not in ops.operations
    assert documents_examined(ops, "listing_counts") == 1
    assert documents_examined(ops, "products") <= 40 + 24 + listed, ops.operations


@pytest.mark.parametrize("page", [1, 2, 5, 9, 10])
def test_a_windowed_page_is_the_plain_sort(tree, page):
    metal = tree["Metal"]
    # Ties on the issue date, products older than the windows, undated ones last.
    albums = [album(f"P-{n:03d}", metal, days_ago=(n // 3) * 40) for n in range(WINDOWED_FROM + 30)]
    albums += [album(f"U-{n}", metal) for n in range(10)]
    Product.writes.sync(albums)
    sort = [("details.issue_date", -1), ("_id", 1)]
    plain = [d["sku"] for d in Product.objects.collection.find({"listed_in": metal.pk}, {"sku": 1}).sort(sort)]
    response = Client().get(f"/c/metal/?page={page}")
    assert [p.sku for p in response.context["page"]] == plain[(page - 1) * 24:page * 24]


def test_a_product_moved_in_the_admin_changes_both_counts(tree, admin_client):
    reader = Client()
    make_product("Alpha", categories=[tree["Metal"].pk], sku="SKU-A")
    assert reader.get("/c/music/").context["page"].paginator.count == 1
    assert reader.get("/c/video/").context["page"].paginator.count == 0
    product = Product.objects.get(sku="SKU-A")
    data = album_data(sku="SKU-A", title="Alpha", categories=[str(tree["Video"].pk)],
                      details_artist="Artist", details_genre="Rock")
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                               "LOCATION": "the-admin"}}):
        assert admin_client.post(f"/admin/catalog/product/{product.pk}/change/", data).status_code == 302
    assert reader.get("/c/music/").context["page"].paginator.count == 0
    assert reader.get("/c/video/").context["page"].paginator.count == 1
    assert_kept_exactly(tree["Music"], tree["Video"])


def test_a_writer_that_died_after_its_mark_never_shows_a_wrong_count_and_is_healed(tree, monkeypatch):
    metal = tree["Metal"]
    make_product("One", categories=[metal.pk])
    # A writer marks Metal, writes a product, and dies before its recount.
    ListingCount.objects.mark([metal.pk])
    Product.objects.collection.insert_one({"sku": "RAW", "title": "Raw", "listed_in": [metal.pk]})
    assert kept(metal)["listed"] == 1 and not counts._trusted(kept(metal))
    assert ListingCount.objects.listed(metal.pk) == 2  # counted: the kept count is not shown
    assert not counts._trusted(kept(metal))  # too early to heal: the writer may still be running
    later = clock.now() + datetime.timedelta(seconds=counts.HEAL_AFTER + 1)
    monkeypatch.setattr("core.clock.now", lambda: later)
    assert ListingCount.objects.listed(metal.pk) == 2
    assert counts._trusted(kept(metal)) and kept(metal)["listed"] == 2


def test_concurrent_saves_and_moves_leave_every_count_exact(tree):
    music, rock, metal, jazz = (tree[n] for n in ("Music", "Rock", "Metal", "Jazz"))
    made = [make_product(f"Base {n}", categories=[metal.pk]) for n in range(4)]

    def add(index):
        for n in range(4):
            make_product(f"T{index}-{n}", categories=[(metal, jazz)[(index + n) % 2].pk])
        made[index].categories = [jazz.pk]
        made[index].save()

    run_together(*[lambda index=index: add(index) for index in range(4)],
                 lambda: Category.writes.move(jazz, rock))  # Jazz (gaining products meanwhile) moves under Rock
    assert_kept_exactly(music, rock, metal, jazz)
    assert kept(music)["listed"] == 20


def test_populate_counts_every_category_once_at_its_end():
    with count_operations() as ops:
        populate(60, categories=200, stock=1)
    # recount_all, once; the deals' counts per saving (keep_savings_counts), once
    assert ops.operations.count(("products", "aggregate")) == 2
    tops = list(Category.objects.filter(parent_id=None))
    listing = [c for c in tops if kept(c) is not None]
    assert all(counted(c) == 0 for c in tops if c not in listing)  # no document: nothing listed
    assert_kept_exactly(*listing)
    assert sum(kept(c)["listed"] for c in listing) == 60


def test_a_count_is_stored_over_an_older_one_or_none_never_over_a_newer_one(tree):
    metal, jazz = tree["Metal"], tree["Jazz"]
    now = clock.now()
    ListingCount.objects._store({metal.pk: 5}, now)  # none yet: stored
    assert kept(metal)["listed"] == 5
    ListingCount.objects._store({metal.pk: 7, jazz.pk: 1}, now - datetime.timedelta(seconds=1))
    assert kept(metal)["listed"] == 5 and kept(jazz)["listed"] == 1  # older than the one kept
    ListingCount.objects.collection.update_one({"_id": jazz.pk}, {"$unset": {"counted_at": ""}})
    ListingCount.objects._store({metal.pk: 9, jazz.pk: 2}, now + datetime.timedelta(seconds=1))
    assert kept(metal)["listed"] == 9 and kept(jazz)["listed"] == 2
