"""The storefront's catalog cache (``catalog/store/cache.py``): staff edits show on the next
request of another process, availability is never cached, and a warm page costs the same
round trips and documents examined whatever the size of the category.

"Another process" is a second cache: Django's local-memory cache under another
``LOCATION`` is a separate store, as a second worker's memory is (and one test runs
the edit in a real second process). A fix that cleared the writer's own cache
only would fail these tests: the reader's cache is never cleared.
"""

import os
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.cache import caches
from django.db import connections
from django.test import Client, override_settings

from catalog.models import CatalogVersion, Category, Product
from inventory.models import Inventory
from core.mongo.counter import count_operations
from tests.support.admin import album_data
from tests.support.examined import documents_examined
from tests.support.products import make_product
from tests.support.threads import run_many

BASE_DIR = Path(__file__).resolve().parents[2]


def _cache(location):
    return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                        "LOCATION": location}}


@contextmanager
def other_process():
    """Run the block with another process's cache (a separate local-memory store)."""
    with override_settings(CACHES=_cache("another-process")):
        yield


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal, Video; two albums in Metal, with stock."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}}, "Video": {}})
    albums = [make_product("Alpha Album", genre=["Metal"], year=2001, list_cents=2000,
                           retail_cents=1500, categories=[tree["Metal"].pk], sku="SKU-A"),
              make_product("Beta Album", genre=["Metal"], year=2002, list_cents=2000,
                           categories=[tree["Metal"].pk], sku="SKU-B")]
    Inventory.objects.ensure_stock(["SKU-A", "SKU-B"], 10)
    with override_settings(CACHES=_cache("the-reader")):
        caches["default"].clear()
        yield {**tree, "albums": albums}


PAGES = ["/", "/c/music/", "/c/metal/", "/p/SKU-A/", "/search/?q=alpha", "/deals/",
         "/genre/Metal/", "/artist/Artist/"]


def warm(client, pages=PAGES):
    """Request each page twice: the second answer comes from the reader's cache (a page that
    shows products only its value names reads their versions before their cards, and keeps
    them from its first request: ``tests/catalog/test_second_visit.py``)."""
    for url in pages:
        for _ in range(2):
            assert client.get(url).status_code == 200, url


def crumbs(response):
    """The breadcrumbs' names after Home, from the HTML (a page kept whole renders no template)."""
    nav = re.search(r'<nav class="breadcrumbs".*?</nav>', response.content.decode(), re.S).group(0)
    return re.findall(r'<li>(?:<a href="[^"]*">|<span[^>]*>)([^<]*)<', nav)[1:]


def test_a_price_and_a_title_changed_in_the_admin_show_on_the_next_request(shop, admin_client):
    reader = Client()
    warm(reader)
    data = album_data(sku="SKU-A", title="Omega Album", list_price="20.00", retail_price="7.00",
                      categories=[str(shop["Metal"].pk)],
                      details_artist="Artist", details_genre="Metal",
                      details_issue_date="2001-01-01 00:00")
    with other_process():
        response = admin_client.post(f"/admin/catalog/product/{shop['albums'][0].pk}/change/", data)
    assert response.status_code == 302
    for url in ["/", "/c/music/", "/c/metal/", "/p/SKU-A/", "/deals/", "/genre/Metal/",
                "/artist/Artist/"]:
        html = reader.get(url).content.decode()
        assert "Omega Album" in html and "Alpha Album" not in html, url
        assert "$7.00" in html and "$15.00" not in html, url
    assert "Omega Album" in reader.get("/search/?q=omega").content.decode()
    assert reader.get("/search/?q=alpha").context["page"].paginator.count == 0


def test_a_product_added_in_the_admin_shows_on_the_next_request(shop, admin_client):
    reader = Client()
    warm(reader)
    data = album_data(sku="SKU-NEW", title="Gamma Album", categories=[str(shop["Rock"].pk)],
                      details_artist="Artist", details_genre="Metal")
    with other_process():
        assert admin_client.post("/admin/catalog/product/add/", data).status_code == 302
    music = reader.get("/c/music/")
    assert music.context["page"].paginator.count == 3
    assert "Gamma Album" in music.content.decode()
    assert "Gamma Album" in reader.get("/").content.decode()  # the newest products
    assert "Gamma Album" in reader.get("/genre/Metal/").content.decode()
    assert reader.get("/p/SKU-NEW/").status_code == 200


def test_a_product_deleted_in_the_admin_is_gone_on_the_next_request(shop, admin_client):
    reader = Client()
    warm(reader)
    with other_process():
        response = admin_client.post(f"/admin/catalog/product/{shop['albums'][1].pk}/delete/",
                                     {"post": "yes"})
    assert response.status_code == 302
    assert "Beta Album" not in reader.get("/c/metal/").content.decode()
    assert reader.get("/p/SKU-B/").status_code == 404


def test_a_category_moved_in_the_admin_moves_listings_and_breadcrumbs(shop, admin_client):
    reader = Client()
    warm(reader)
    assert crumbs(reader.get("/p/SKU-A/")) == ["Music", "Rock", "Metal"]
    with other_process():
        response = admin_client.post("/admin/catalog/category/move/", {
            "node": str(shop["Metal"].pk), "target": str(shop["Video"].pk), "where": "inside"})
    assert response.status_code == 200
    assert crumbs(reader.get("/c/metal/")) == ["Video", "Metal"]
    assert crumbs(reader.get("/p/SKU-A/")) == ["Video", "Metal"]
    assert reader.get("/c/music/").context["page"].paginator.count == 0
    video = reader.get("/c/video/")
    assert video.context["page"].paginator.count == 2
    assert [c.name for c in video.context["subcategories"]] == ["Metal"]


def test_a_category_renamed_in_the_admin_renames_the_navigation_and_breadcrumbs(shop, admin_client):
    reader = Client()
    warm(reader)
    with other_process():
        response = admin_client.post(f"/admin/catalog/category/{shop['Music'].pk}/change/",
                                     {"name": "Sounds", "slug": "music", "parent": ""})
    assert response.status_code == 302
    home = reader.get("/")
    assert "Sounds" in home.content.decode()
    assert [c.name for c in home.context["top_categories"]] == ["Sounds", "Video"]
    assert crumbs(reader.get("/c/metal/")) == ["Sounds", "Rock", "Metal"]
    assert crumbs(reader.get("/p/SKU-A/")) == ["Sounds", "Rock", "Metal"]


def test_edits_by_the_managers_in_another_process_show_on_the_next_request(shop):
    """A real second process (``manage.py shell``) renames a category through
    ``Category.objects`` and changes a price through the ORM."""
    reader = Client()
    warm(reader)
    script = (
        "from catalog.models import Category, Product, Pricing\n"
        "Category.writes.rename(Category.objects.get_by_slug('rock'), 'Hard Rock')\n"
        "p = Product.objects.get(sku='SKU-A')\n"
        "p.pricing = Pricing.from_prices(2000, 444)\n"
        "p.save()\n"
    )
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "shop.test_settings",
               "MONGODB_NAME": connections["default"].settings_dict["NAME"]}
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=BASE_DIR,
                            env=environ, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert crumbs(reader.get("/c/metal/")) == ["Music", "Hard Rock", "Metal"]
    assert "$4.44" in reader.get("/c/metal/").content.decode()
    assert "$4.44" in reader.get("/p/SKU-A/").content.decode()


def test_availability_is_never_cached(shop):
    reader = Client()
    warm(reader)
    versions = list(CatalogVersion.objects.collection.find({}, {"_id": 0}))
    Inventory.objects.set_stock("SKU-A", 0)
    Inventory.objects.set_stock("SKU-B", 2)
    # stock is not a catalog write
    assert list(CatalogVersion.objects.collection.find({}, {"_id": 0})) == versions
    listing = reader.get("/c/metal/")
    available = {p.sku: p.available for p in listing.context["page"].object_list}
    assert available == {"SKU-A": 0, "SKU-B": 2}
    html = listing.content.decode()
    assert "Sold out" in html and "Only 2 left" in html
    assert "Sold out" in reader.get("/p/SKU-A/").content.decode()
    assert "Only 2 left" in reader.get("/search/?q=beta").content.decode()


def test_every_catalog_write_bumps_a_version(shop):
    """Which versions each write bumps: ``tests/catalog/test_scoped_cache.py``."""
    def tokens():
        return {d["name"]: d["token"] for d in CatalogVersion.objects.collection.find()}

    seen = tokens()

    def changed():
        nonlocal seen
        now = tokens()
        assert now != seen
        seen = now

    jazz = Category.writes.create_category("Jazz", parent=shop["Music"])
    changed()
    Category.writes.rename(jazz, "Cool Jazz")
    changed()
    Category.writes.move(jazz, shop["Video"])
    changed()
    Category.writes.delete_category(jazz)
    changed()
    product = Product.objects.get(sku="SKU-A")
    product.title = "Changed"
    product.save()
    changed()
    Product.writes.sync([Product(sku="SKU-S", type="Audio Album", title="Synced",
                                  pricing=product.pricing)])
    changed()
    product.delete()
    changed()


# -- what a page costs -------------------------------------------------------------------

WARM = [("catalog_versions", "find"), ("inventory", "find")]


@pytest.mark.parametrize("url", PAGES)
def test_a_warm_page_costs_the_version_and_the_stock(shop, url):
    reader = Client()
    warm(reader, [url])
    with count_operations() as ops:
        response = reader.get(url)
    assert response.status_code == 200
    reads = [op for op in ops.operations if op != ("events", "insert")]  # the product view
    assert reads == WARM, ops.operations


def test_a_page_reads_the_versions_once_from_its_second_request(shop):
    # The first request of a page reads the versions it finds it needs as it goes (a
    # search's shown products, say), keeps what it computes, and remembers them for the page.
    for url in PAGES:
        url = f"{url}{'&' if '?' in url else '?'}page=1"
        with count_operations() as first:
            Client().get(url)
        # (4: a category never counted reads its facet counts' versions again after counting
        # them, to keep them only if no save ran meanwhile: ``kept_facet_parts``)
        assert first.operations.count(("catalog_versions", "find")) <= 4, (url, first.operations)
        with count_operations() as ops:
            Client().get(url)
        assert ops.operations.count(("catalog_versions", "find")) == 1, (url, ops.operations)


@pytest.mark.parametrize("products", [30, 90])
def test_a_warm_category_page_examines_the_page_not_the_category(shop, products):
    for n in range(products):
        make_product(f"Filler {n}", categories=[shop["Metal"].pk], sku=f"F-{n:03d}")
    Inventory.objects.ensure_stock([f"F-{n:03d}" for n in range(products)], 5)
    reader = Client()
    reader.get("/c/music/")
    with count_operations() as ops:
        response = reader.get("/c/music/")
    assert response.context["page"].paginator.count == products + 2
    # the version documents the page needs (the epoch, the category, the navigation, the
    # tree, the issue dates, the cross-category listings, the 24 products shown, whose
    # versions key its cards), and the stock of the 24 products shown: not the category's
    examined = documents_examined(ops)
    assert examined["inventory"] == 24 and examined["catalog_versions"] <= 7 + 24, examined
    assert set(examined) == {"catalog_versions", "inventory"}


def test_first_reads_racing_to_create_the_version_all_get_one_token():
    # SecantusDB answers None to the losers of racing find_one_and_update(upsert=True):
    # the version is created by a plain upsert and read again (catalog/store/versions.py).
    CatalogVersion.objects.collection.delete_many({})
    for _ in range(5):
        CatalogVersion.objects.collection.delete_many({})
        tokens = run_many(lambda _number: CatalogVersion.objects.current(), 8)
        assert len(tokens) == 8 and len(set(tokens)) == 1
