"""Edits cool only what they change (``catalog/store/cache.py``, ``catalog/store/writes.py``).

A product edit makes stale only the pages that show the product; a category
edit only its subtree's pages (and its parent's list of subcategories); a
stock change no cached page. "Warm" is asserted by round trips: a warm
category page reads the versions (one ``find``) and the stock of its cards,
nothing else. The reader's cache is a separate local-memory store that no
write ever clears (a second worker's memory), and one test edits from a real
second process (``manage.py shell``).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import caches
from django.db import connections
from django.test import Client, override_settings

from catalog.store.cache import (EPOCH, ISSUED, NAVIGATION, PRODUCTS, TREE, cards_scope, category_scope,
                           faceted_part_scope, faceted_scope, names_scope, order_scope, price_band, price_count_scope,
                           prices_scope, product_scope, relisted_scope, savings_part_scope, savings_scope, titles_scope,
                           words_scope)
from catalog.models import CatalogVersion, Category, Pricing, Product
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.support.products import make_product, set_price

BASE_DIR = Path(__file__).resolve().parents[2]
WARM = [("catalog_versions", "find"), ("inventory", "find")]


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal > Doom, Music > Jazz, Video; an album in Metal, one in Jazz, a
    film in Video, with stock; the reader's cache empty."""
    tree = make_tree({"Music": {"Rock": {"Metal": {"Doom": {}}}, "Jazz": {}}, "Video": {}})
    make_product("Alpha Album", list_cents=2000, retail_cents=1500, categories=[tree["Metal"].pk],
                 sku="SKU-A")
    make_product("Blue Train", list_cents=2000, categories=[tree["Jazz"].pk], sku="SKU-J")
    make_product("Video Film", type="Film", categories=[tree["Video"].pk], sku="SKU-V")
    Inventory.objects.ensure_stock(["SKU-A", "SKU-J", "SKU-V"], 10)
    settings = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                            "LOCATION": "scoped-reader"}}
    with override_settings(CACHES=settings):
        caches["default"].clear()
        yield tree


PAGES = ["/c/video/", "/c/jazz/", "/c/music/", "/c/metal/", "/c/doom/", "/p/SKU-A/", "/p/SKU-V/",
         "/c/video/?sort=price", "/c/jazz/?min_price=1&max_price=100"]


def warm(client, pages=PAGES):
    """Request each page twice (see ``test_catalog_cache.warm``)."""
    for url in pages:
        for _ in range(2):
            assert client.get(url).status_code == 200, url


def reads(client, url):
    """The round trips of a request for ``url`` (the product view event left out)."""
    with count_operations() as ops:
        response = client.get(url)
    assert response.status_code == 200, url
    return [op for op in ops.operations if op != ("events", "insert")]


def is_warm(client, url):
    """Whether ``url`` is served from the reader's cache: the versions and stock only (the
    stock of its cards, none for a page without products, and the facets' in-stock count,
    kept only seconds: ``catalog/listings/facet_manager.py``)."""
    done = reads(client, url)
    return done[:1] == WARM[:1] and all(op == ("inventory", "find") for op in done[1:]) and len(done) <= 3


def crumbs(response):
    return [c["name"] for c in response.context["crumbs"]]


def new_price(sku, cents):
    set_price(sku, cents, 2000)


def test_a_product_edit_leaves_other_categories_warm_and_its_own_pages_fresh(shop):
    reader = Client()
    warm(reader)
    new_price("SKU-A", 444)
    for url in ["/c/video/", "/c/jazz/", "/p/SKU-V/", "/c/video/?sort=price",
                "/c/jazz/?min_price=1&max_price=100"]:
        assert is_warm(reader, url), url
    for url in ["/c/metal/", "/c/rock/", "/c/music/", "/p/SKU-A/"]:
        html = reader.get(url).content.decode()
        assert "$4.44" in html and "$15.00" not in html, url
    assert "$4.44" in reader.get("/search/?q=alpha").content.decode()
    assert "$4.44" in reader.get("/deals/").content.decode()


def test_a_price_edit_leaves_deals_searches_and_home_warm_unless_they_show_it(shop):
    pages = ["/search/?q=blue", "/search/?q=alpha", "/deals/?min=5", "/deals/?min=30", "/"]
    reader = Client()
    warm(reader, pages)
    new_price("SKU-V", 1800)  # the film: saving 0 -> 10 percent, shown nowhere but on home
    assert is_warm(reader, "/search/?q=blue")
    assert is_warm(reader, "/search/?q=alpha")
    assert is_warm(reader, "/deals/?min=30")  # no product crosses 30 percent
    deals = reader.get("/deals/?min=5").content.decode()  # the film enters the deals
    assert "Video Film" in deals and "$18.00" in deals
    assert "$18.00" in reader.get("/").content.decode()
    new_price("SKU-A", 1400)  # 25 -> 30 percent: not over 30
    assert is_warm(reader, "/search/?q=blue")
    assert "$14.00" in reader.get("/search/?q=alpha").content.decode()
    new_price("SKU-A", 1000)  # 50 percent: over 30
    assert "Alpha Album" in reader.get("/deals/?min=30").content.decode()


def test_a_product_moved_to_another_category_leaves_both_fresh(shop):
    reader = Client()
    warm(reader)
    product = Product.objects.get(sku="SKU-A")
    product.categories = [shop["Jazz"].pk]
    product.save()
    assert "Alpha Album" not in reader.get("/c/metal/").content.decode()
    assert reader.get("/c/metal/").context["page"].paginator.count == 0
    assert "Alpha Album" in reader.get("/c/jazz/").content.decode()
    assert crumbs(reader.get("/p/SKU-A/")) == ["Music", "Jazz"]
    assert is_warm(reader, "/c/video/")


def test_a_product_edit_in_another_process_leaves_other_categories_warm(shop):
    """A real second process (``manage.py shell``) saves a price; this process's cache
    keeps the page of another category and serves the new price on the product's pages."""
    reader = Client()
    warm(reader)
    script = ("from catalog.models import Product, Pricing\n"
              "p = Product.objects.get(sku='SKU-A')\n"
              "p.pricing = Pricing.from_prices(2000, 444)\n"
              "p.save()\n")
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "shop.test_settings",
               "MONGODB_NAME": connections["default"].settings_dict["NAME"]}
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=BASE_DIR,
                            env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert is_warm(reader, "/c/video/")
    assert is_warm(reader, "/c/jazz/")
    assert "$4.44" in reader.get("/c/metal/").content.decode()
    assert "$4.44" in reader.get("/p/SKU-A/").content.decode()


def test_a_category_rename_cools_its_subtree_and_parent_only(shop):
    reader = Client()
    warm(reader)
    Category.writes.rename(Category.objects.get_by_slug("metal"), "Heavy Metal")
    for url in ["/c/video/", "/c/jazz/", "/c/video/?sort=price"]:
        assert is_warm(reader, url), url
    # a product page's breadcrumbs follow any rename or move of the tree: one read of its
    # categories, the product itself stays warm
    assert sorted(reads(reader, "/p/SKU-V/")) == sorted([*WARM, ("categories", "find")])
    assert crumbs(reader.get("/c/metal/")) == ["Music", "Rock", "Heavy Metal"]
    assert crumbs(reader.get("/c/doom/")) == ["Music", "Rock", "Heavy Metal", "Doom"]
    assert [c.name for c in reader.get("/c/rock/").context["subcategories"]] == ["Heavy Metal"]
    assert crumbs(reader.get("/p/SKU-A/")) == ["Music", "Rock", "Heavy Metal"]


def test_a_category_rename_at_the_top_renames_the_navigation(shop):
    reader = Client()
    warm(reader)
    Category.writes.rename(shop["Video"], "Films")
    assert [c.name for c in reader.get("/c/jazz/").context["top_categories"]] == ["Music", "Films"]
    assert "Films" in reader.get("/c/jazz/").content.decode()


def test_a_category_move_cools_the_moved_subtree_and_its_old_and_new_places(shop):
    reader = Client()
    warm(reader)
    Category.writes.move(shop["Metal"], shop["Jazz"])
    assert is_warm(reader, "/c/video/")
    assert crumbs(reader.get("/c/doom/")) == ["Music", "Jazz", "Metal", "Doom"]
    assert reader.get("/c/rock/").context["page"].paginator.count == 0
    assert reader.get("/c/jazz/").context["page"].paginator.count == 2
    assert [c.name for c in reader.get("/c/jazz/").context["subcategories"]] == ["Metal"]


def test_a_new_category_shows_under_its_parent(shop):
    reader = Client()
    warm(reader)
    Category.writes.create_category("Cool Jazz", parent=shop["Jazz"])
    assert is_warm(reader, "/c/video/")
    assert [c.name for c in reader.get("/c/jazz/").context["subcategories"]] == ["Cool Jazz"]


def test_a_slug_taken_over_by_another_category_is_read_again(shop):
    reader = Client()
    warm(reader, ["/c/doom/"])
    Category.writes.rename(Category.objects.get_by_slug("doom"), "Sludge", slug="sludge")
    assert reader.get("/c/doom/").status_code == 404
    Category.writes.create_category("Doom", parent=shop["Jazz"])
    assert crumbs(reader.get("/c/doom/")) == ["Music", "Jazz", "Doom"]
    assert crumbs(reader.get("/c/sludge/")) == ["Music", "Rock", "Metal", "Sludge"]


def test_a_stock_change_cools_no_page(shop):
    reader = Client()
    warm(reader)
    versions = list(CatalogVersion.objects.collection.find({}, {"_id": 0}))
    Inventory.objects.set_stock("SKU-A", 0)
    Inventory.objects.set_stock("SKU-V", 2)
    assert list(CatalogVersion.objects.collection.find({}, {"_id": 0})) == versions
    for url in PAGES:
        assert is_warm(reader, url), url
    assert "Sold out" in reader.get("/c/metal/").content.decode()
    assert "Only 2 left" in reader.get("/c/video/").content.decode()


def test_a_price_feed_of_two_hundred_saves_leaves_an_unrelated_category_warm(shop):
    rows = [Product(sku=f"FEED-{n:04d}", type="Audio Album", title=f"Feed {n}",
                    categories=[shop["Metal"].pk], pricing=Pricing.from_prices(1000, 900))
            for n in range(200)]
    Product.writes.sync(rows)
    reader = Client()
    warm(reader)
    for n, product in enumerate(Product.objects.filter(sku__startswith="FEED-")):
        product.pricing = Pricing.from_prices(1000, 500 + n % 100)
        product.save()
    assert is_warm(reader, "/c/video/")
    assert is_warm(reader, "/c/jazz/")
    assert is_warm(reader, "/p/SKU-V/")
    # and as one feed through the loaders' sync
    for row in rows:
        row.pricing = Pricing.from_prices(1000, 777)
    assert Product.writes.sync(rows)["updated"] == 200
    assert is_warm(reader, "/c/video/")
    assert "$7.77" in reader.get("/c/metal/?sort=price").content.decode()


def test_each_write_bumps_the_versions_of_what_it_changed(shop):
    def bumped(write):
        before = {d["name"]: d["token"] for d in CatalogVersion.objects.collection.find()}
        write()
        after = {d["name"]: d["token"] for d in CatalogVersion.objects.collection.find()}
        return {name for name, token in after.items() if before.get(name) != token}

    music, rock, metal, doom, jazz = (shop[n].pk for n in ["Music", "Rock", "Metal", "Doom", "Jazz"])
    listed = [music, rock, metal]
    # 1500 -> 1450 of 2000: saving 25 -> 27 percent; one narrow price band (77), one facet band
    assert price_band(1500) == price_band(1450) == 77
    assert bumped(lambda: new_price("SKU-A", 1450)) == {
        *product_scope(["SKU-A"]), *cards_scope(listed), *prices_scope(listed, 1450, 1500), PRODUCTS,
        *price_count_scope(listed, [1450, 1500]),  # its kept order counts: the bands it left and joined
        *savings_scope([25, 27]), *savings_part_scope(25, [2020]), *savings_part_scope(27, [2020])}
    assert bumped(lambda: new_price("SKU-A", 1450)) == {  # saved unchanged
        *product_scope(["SKU-A"]), *cards_scope(listed), PRODUCTS}
    # 1450 -> 950: the narrow bands between, another facet band: its facet counts, its words'
    assert bumped(lambda: new_price("SKU-A", 950)) == {
        *product_scope(["SKU-A"]), *cards_scope(listed), *prices_scope(listed, 950, 1450), PRODUCTS,
        *price_count_scope(listed, [950, 1450]), *faceted_scope(listed), *faceted_part_scope(listed, [2020]), *words_scope(["alpha", "album", "artist"]),
        *savings_scope([27, 52]), *savings_part_scope(27, [2020]), *savings_part_scope(52, [2020])}
    assert len(prices_scope([music], 950, 1450)) == price_band(1450) - price_band(950) + 1 == 6
    retitled = Product.objects.get(sku="SKU-A")
    retitled.title = "Omega"
    assert bumped(retitled.save) == {
        *product_scope(["SKU-A"]), *cards_scope(listed), *order_scope(listed, "title"), PRODUCTS,
        *titles_scope(listed, ["Alpha Album", "Omega"]), *words_scope(["alpha", "album", "omega", "artist"])}
    assert bumped(lambda: Category.writes.rename(Category.objects.get(pk=metal), "M")) == {
        *category_scope([metal, rock]), *names_scope([metal]), TREE}
    assert bumped(lambda: Category.writes.rename(Category.objects.get(pk=jazz), "J")) == {
        *category_scope([jazz, music]), *names_scope([jazz]), TREE, NAVIGATION}
    assert bumped(lambda: Category.writes.move(Category.objects.get(pk=doom), jazz)) == {
        *category_scope([doom, metal, rock, music, jazz]), *relisted_scope([metal, rock, music, jazz]), TREE}
    assert bumped(lambda: Product.objects.get(sku="SKU-J").delete()) == {
        *product_scope(["SKU-J"]), *category_scope([music, jazz]), *cards_scope([music, jazz]), PRODUCTS, ISSUED,
        *price_count_scope([music, jazz], [2000]), *titles_scope([music, jazz], ["Blue Train"]),
        *faceted_part_scope([music, jazz], [2020]),
        *words_scope(["blue", "train", "artist"]), *savings_scope([0]),
        *savings_part_scope(0, [2020])}
    assert bumped(lambda: Category.writes.delete_category(Category.objects.get(pk=doom))) == {
        *category_scope([doom, jazz]), TREE}
    assert bumped(lambda: Inventory.objects.set_stock("SKU-A", 3)) == set()
    epoch = CatalogVersion.objects.current()
    Product.writes.delete_all()
    assert CatalogVersion.objects.current() != epoch  # a reset cools everything
    assert EPOCH == "catalog"


def test_first_bumps_of_one_scope_racing_all_succeed_and_leave_one_document(db):
    from tests.support.threads import run_many

    for round_ in range(5):
        name = f"product:RACE-{round_}"
        tokens = run_many(lambda _number: CatalogVersion.objects.bump([name])[name], 8)
        stored = list(CatalogVersion.objects.collection.find({"name": name}))
        assert len(stored) == 1 and stored[0]["token"] in tokens
        assert CatalogVersion.objects.collection.count_documents({"name": EPOCH}) == 1
