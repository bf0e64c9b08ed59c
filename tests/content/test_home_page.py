"""The home page staff run (``content/``): blocks ordered and scheduled in the admin, a staff
preview, today's home page with no blocks, and the cache: warm in 2 round trips, cooled only by
what it shows (its blocks, the products its rows show; a schedule boundary needs no write)."""

import datetime
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client, override_settings
from PIL import Image

from catalog.models import CatalogVersion
from content.models import HomeBlock
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.support.products import make_product, set_price

UTC = datetime.UTC
NOW = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
WARM = [("catalog_versions", "find"), ("inventory", "find")]


@pytest.fixture
def shop(make_tree, monkeypatch):
    """Music > Rock, Jazz; two rock albums, a jazz album, an album in no row; the clock at NOW;
    the reader's cache a store of its own that no write clears (another worker's memory)."""
    tree = make_tree({"Music": {"Rock": {}, "Jazz": {}}})
    make_product("Rock One", categories=[tree["Rock"].pk], sku="R-1", year=2001)
    make_product("Rock Two", categories=[tree["Rock"].pk], sku="R-2", year=2002)
    make_product("Blue Train", categories=[tree["Jazz"].pk], sku="J-1", year=1957, tracks=["Moment's Notice"])
    make_product("Elsewhere", categories=[tree["Jazz"].pk], sku="X-1", year=1950)
    Inventory.objects.ensure_stock(["R-1", "R-2", "J-1", "X-1"], 5)
    monkeypatch.setattr("core.clock.now", lambda: NOW)
    stores = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "home-reader"}}
    with override_settings(CACHES=stores):
        caches["default"].clear()
        yield tree


def block(**fields):
    made = HomeBlock(published=True, **fields)
    made.full_clean()
    made.save()
    return made


def hero(heading="Summer sale", **fields):
    return block(kind=HomeBlock.HERO, heading=heading, text="Records half price.", link_url="/deals/",
                 link_label="See the deals", **fields)


def reads(client, url="/"):
    with count_operations() as ops:
        response = client.get(url)
    assert response.status_code == 200
    return [op for op in ops.operations if op != ("events", "insert")]


def html(client, url="/"):
    return client.get(url).content.decode()


def test_no_blocks_is_todays_home_page(shop):
    client = Client()
    response = client.get("/")
    assert response.templates[0].name == "catalog/home.html"
    assert [c.name for c in response.context["top_categories"]] == ["Music"]
    client.get("/")
    assert reads(client) == WARM  # no block ever saved: no read of them, cold or warm


def test_hero_collections_and_new_in_show_in_position_order(shop):
    block(kind=HomeBlock.NEW_IN, heading="New in", position=40, limit=2)
    block(kind=HomeBlock.COLLECTION, heading="Jazz picks", position=30, source=HomeBlock.CATEGORY,
          category_slug="jazz", limit=4)
    block(kind=HomeBlock.COLLECTION, heading="Staff picks", position=20, source=HomeBlock.PRODUCTS,
          skus="R-2, J-1, NOPE-1")
    block(kind=HomeBlock.COLLECTION, heading="Trains", position=25, source=HomeBlock.SEARCH,
          search_query="train")
    hero(position=10)
    page = html(Client())
    order = [page.index(s) for s in ("Summer sale", "Staff picks", "Trains", "Jazz picks", "New in")]
    assert order == sorted(order)
    assert '<h1 id="block-' in page and "See the deals" in page
    staff = page[page.index("Staff picks"):page.index("Trains")]
    assert staff.index("Rock Two") < staff.index("Blue Train") and "Rock One" not in staff
    assert "Blue Train" in page[page.index("Trains"):page.index("Jazz picks")]
    jazz = page[page.index("Jazz picks"):page.index("New in")]
    assert jazz.index("Blue Train") < jazz.index("Elsewhere") and "Rock" not in jazz
    newest = page[page.index("New in"):]
    assert "Rock Two" in newest and "Rock One" in newest and "Blue Train" not in newest


def test_a_hero_scheduled_for_tomorrow_shows_after_its_start_without_any_write(shop, monkeypatch):
    hero("Sale from tomorrow", starts_at=NOW + datetime.timedelta(days=1), ends_at=NOW + datetime.timedelta(days=2))
    client = Client()
    assert "Sale from tomorrow" not in html(client)
    client.get("/")
    monkeypatch.setattr("core.clock.now", lambda: NOW + datetime.timedelta(days=1, seconds=1))
    with count_operations() as ops:
        page = html(client)
    assert "Sale from tomorrow" in page
    assert ("catalog_versions", "update") not in ops.operations and ("home_blocks", "find") not in ops.operations
    monkeypatch.setattr("core.clock.now", lambda: NOW + datetime.timedelta(days=2))
    assert "Sale from tomorrow" not in html(client)  # ended


def test_drafts_and_scheduled_blocks_show_only_in_the_staff_preview(shop):
    draft = hero("Draft hero")
    draft.published = False
    draft.save()
    later = hero("Later hero", starts_at=NOW + datetime.timedelta(days=3))
    shopper = Client()
    assert "Draft hero" not in html(shopper)
    assert "Draft hero" not in html(shopper, f"/?preview={draft.pk}")  # not staff: the public page
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("editor", password="pw", is_staff=True))
    response = staff.get(f"/?preview={draft.pk}")
    assert "Draft hero" in response.content.decode() and "Preview" in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    assert "Later hero" in html(staff, f"/?preview={later.pk}")
    assert "Draft hero" not in html(staff, "/?preview=not-an-id")
    assert "Draft hero" not in html(shopper)  # the preview left nothing in the cache


def test_the_warm_home_page_costs_the_versions_and_one_stock_read(shop):
    hero()
    block(kind=HomeBlock.COLLECTION, heading="Staff picks", position=20, source=HomeBlock.PRODUCTS, skus="R-2, J-1")
    block(kind=HomeBlock.COLLECTION, heading="Jazz picks", position=30, source=HomeBlock.CATEGORY, category_slug="jazz")
    block(kind=HomeBlock.NEW_IN, heading="New in", position=40)
    client = Client()
    for _ in range(3):
        client.get("/")
    assert reads(client) == WARM  # every row's stock in one read


def test_an_edit_elsewhere_leaves_it_warm_and_an_edit_it_shows_refreshes_it(shop):
    block(kind=HomeBlock.COLLECTION, heading="Staff picks", position=20, source=HomeBlock.PRODUCTS, skus="J-1")
    client = Client()
    for _ in range(3):
        client.get("/")
    set_price("X-1", 555, 2000)  # shown nowhere on the home page
    assert reads(client) == WARM
    set_price("J-1", 444, 2000)  # shown in Staff picks
    assert "$4.44" in html(client)
    assert reads(client) == WARM
    Inventory.objects.set_stock("J-1", 0)  # stock: live, never cached
    assert "Sold out" in html(client)


def test_a_block_saved_or_deleted_shows_on_the_next_request(shop):
    made = hero("First heading")
    client = Client()
    assert "First heading" in html(client)
    made.heading = "Second heading"
    made.save()
    assert "Second heading" in html(client)
    made.delete()
    page = html(client)
    assert "Second heading" not in page and "Music" in page  # today's home page again


def test_another_scope_bump_leaves_the_home_page_warm(shop):
    hero()
    client = Client()
    for _ in range(3):
        client.get("/")
    CatalogVersion.objects.bump(["pages", "footer", "product:X-1", "category:000000000000000000000000"])
    ops = reads(client)
    assert ops[0] == ("catalog_versions", "find") and ("home_blocks", "find") not in ops


def test_the_admin_validates_a_block(shop):
    with pytest.raises(Exception) as error:
        block(kind=HomeBlock.COLLECTION, heading="Bad", source=HomeBlock.PRODUCTS, skus="R-1, {'$ne': 1}")
    assert "skus" in str(error.value)
    with pytest.raises(Exception) as error:
        block(kind=HomeBlock.COLLECTION, heading="Bad", source=HomeBlock.CATEGORY, category_slug="a.*b")
    assert "category_slug" in str(error.value)
    with pytest.raises(Exception) as error:
        hero(link_url="javascript:alert(1)")
    assert "link_url" in str(error.value)
    with pytest.raises(Exception) as error:
        hero(starts_at=NOW, ends_at=NOW)
    assert "ends_at" in str(error.value)


def test_staff_add_a_hero_with_an_image_in_the_admin(shop, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw")
    client = Client()
    client.force_login(user)
    picture = io.BytesIO()
    Image.new("RGB", (900, 300), (200, 30, 30)).save(picture, "PNG")
    response = client.post("/admin/content/homeblock/add/", {
        "kind": "hero", "position": "5", "published": "on", "heading": "Vinyl week", "text": "",
        "link_url": "/c/rock/", "link_label": "Shop rock", "limit": "8",
        "image": SimpleUploadedFile("hero.png", picture.getvalue(), content_type="image/png")})
    assert response.status_code == 302, response.content.decode()[:2000]
    made = HomeBlock.objects.get(heading="Vinyl week")
    assert made.image.name.startswith("home/")
    page = html(Client())
    assert "Vinyl week" in page and 'class="home-hero-image"' in page and made.hero_image.url in page
    # Widths for the browser to choose from: a phone takes the 840 px one, not the 2,400 px 2x.
    assert (f"{made.hero_image_narrow.url} 840w, {made.hero_image.url} 1200w, "
            f"{made.hero_image_2x.url} 2400w") in page and 'sizes="(min-width: 72rem) 69rem' in page
    listing = client.get("/admin/content/homeblock/").content.decode()
    assert f'href="/?preview={made.pk}"' in listing and "live" in listing


def test_load_content_seeds_a_hero_and_collections_once(chinook):
    call_command("load_content", verbosity=0)
    call_command("load_content", verbosity=0)
    kinds = list(HomeBlock.objects.values_list("kind", flat=True))
    assert kinds == ["hero", "collection", "collection", "collection", "new_in"]
    page = Client().get("/").content.decode()
    assert "Records worth keeping" in page and "Rock classics" in page and "Master Of Puppets" in page
    assert "Recorded live" in page and "New in" in page
