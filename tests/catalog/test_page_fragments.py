"""Pieces of storefront pages cached as HTML (``{% catalog_fragment %}``), cards kept as
documents until a template reads them (``catalog.listings.cards.CardList``), and the product
view's unacknowledged event (``Event.objects.record_view``)."""

import re

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from analytics.models import Event
from catalog.listings.cards import CardList
from catalog.listings.manager import ListingManager
from catalog.models import CatalogVersion
from inventory.models import Inventory
from core.mongo.counter import count_operations
from tests.support.products import make_product, set_price

PAGES = ["/", "/c/music/", "/c/metal/", "/c/video/", "/p/SKU-A/", "/p/SKU-V/", "/search/?q=alpha",
         "/deals/", "/genre/Metal/", "/c/metal/?sort=price", "/c/metal/?sort=price&min_price=abc"]


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal, Video; two albums in Metal and a film in Video, with stock."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}}, "Video": {}})
    make_product("Alpha Album", genre=["Metal"], year=2001, list_cents=2000, retail_cents=1500,
                 categories=[tree["Metal"].pk], sku="SKU-A")
    make_product("Beta Album", genre=["Metal"], year=2002, list_cents=2000,
                 categories=[tree["Metal"].pk], sku="SKU-B")
    make_product("Video One", categories=[tree["Video"].pk], sku="SKU-V")
    Inventory.objects.ensure_stock(["SKU-A", "SKU-B", "SKU-V"], 10)
    with override_settings(CACHES={"default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "fragments"}}):
        caches["default"].clear()  # no slug remembered from another test's database
        yield tree


def html(response):
    """The page without its per-request CSRF tokens and CSP nonces."""
    text = response.content.decode()
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", text)
    return re.sub(r'nonce="[^"]+"', "", text)


def test_every_page_is_the_same_from_cached_fragments_as_rendered_afresh(shop):
    """Each page rendered alone on a new catalog version (every fragment made for it) equals
    the same page after all the others were served on one version (fragments they made,
    e.g. the navigation, are reused): no fragment is shared where its content differs."""
    fresh = {}
    for url in PAGES:
        CatalogVersion.objects.bump()
        fresh[url] = html(Client().get(url))
    CatalogVersion.objects.bump()
    reader = Client()
    for url in PAGES:
        reader.get(url)
    for url in PAGES:
        assert html(reader.get(url)) == fresh[url], url
    assert 'aria-current="true">Music' in fresh["/c/metal/"]
    assert 'aria-current="true"' not in fresh["/p/SKU-A/"]
    assert 'aria-current="page">Deals' in fresh["/deals/"]


def test_a_warm_category_page_turns_no_document_into_a_product(shop, monkeypatch):
    reader = Client()
    reader.get("/c/music/")
    made = []
    convert = ListingManager.card_from_document
    monkeypatch.setattr(ListingManager, "card_from_document",
                        lambda self, *args, **kwargs: made.append(1) or convert(self, *args, **kwargs))
    response = reader.get("/c/music/")
    assert "Alpha Album" in response.content.decode()
    assert made == []
    assert isinstance(response.context["page"].object_list, CardList)


def test_a_stock_change_redraws_the_cards_on_the_same_version(shop):
    reader = Client()
    assert "Only 2 left" not in reader.get("/c/metal/").content.decode()
    Inventory.objects.set_stock("SKU-B", 2)
    assert "Only 2 left" in reader.get("/c/metal/").content.decode()
    Inventory.objects.set_stock("SKU-B", 0)
    assert "Sold out" in reader.get("/c/metal/").content.decode()


def test_an_edit_of_a_product_off_the_page_renders_none_of_its_fragments_again(shop, settings, monkeypatch):
    """One product a page: an edit of Alpha's price (on page 2 of Metal) re-reads page 1's
    cards but renders neither its heading, its facets nor its grid (Beta's) again; page 2
    shows the new price."""
    from catalog.templatetags import fragments

    settings.CATALOG_PAGE_SIZE = 1
    reader = Client()
    for _ in range(2):
        reader.get("/c/metal/")
        reader.get("/c/metal/?page=2")
    rendered = []
    keep = fragments.cached
    monkeypatch.setattr(fragments, "cached", lambda kind, key, compute, scope: keep(
        kind, key, lambda: rendered.append(kind) or compute(), scope))
    set_price("SKU-A", 1400, 2000)
    assert "Beta Album" in reader.get("/c/metal/").content.decode()
    assert rendered == []
    assert "$14.00" in reader.get("/c/metal/?page=2").content.decode()
    assert rendered == ["fragment:cards"]


def test_card_lists_convert_once_and_slice_lazily():
    made = []
    cards = CardList([{"sku": "A", "available": 3}, {"sku": "B"}], lambda d: made.append(d) or d["sku"])
    assert cards.signature() == (("A", 3, None, None), ("B", None, None, None))
    assert len(cards[1:]) == 1 and made == []
    assert list(cards) == ["A", "B"] and cards[0] == "A" and len(made) == 2


def test_a_product_view_is_sent_unacknowledged_and_stored(shop):
    reader = Client()
    reader.get("/p/SKU-A/")
    before = Event.objects.collection.count_documents({"type": "view", "sku": "SKU-A"})
    with count_operations() as ops:
        reader.get("/p/SKU-A/")
    inserts = [c for (name, op), c in zip(ops.operations, ops.commands) if (name, op) == ("events", "insert")]
    assert len(inserts) == 1 and inserts[0]["writeConcern"] == {"w": 0}
    # The thread's next operation goes over the same connection, after the insert.
    assert Event.objects.collection.count_documents({"type": "view", "sku": "SKU-A"}) == before + 1


def test_a_warm_category_page_reads_its_children_not_its_subtree(make_tree, monkeypatch):
    """A top category with 3 children of 4 leaves each: the page's subcategories are the 3
    children, and a warm request turns no more categories into models than the children
    and the top categories (not the 15 below it)."""
    from catalog.tree.category_manager import CategoryManager

    tree = make_tree({"Top": {f"Mid {m}": {f"Leaf {m}-{n}": {} for n in range(4)} for m in range(3)},
                      "Other": {}})
    reader = Client()
    response = reader.get("/c/top/")
    assert [c.name for c in response.context["subcategories"]] == ["Mid 0", "Mid 1", "Mid 2"]
    made = []
    convert = CategoryManager.from_document
    monkeypatch.setattr(CategoryManager, "from_document",
                        lambda self, *args, **kwargs: made.append(1) or convert(self, *args, **kwargs))
    reader.get("/c/top/")
    assert len(made) <= 3 + 2 + 1  # the children, the top categories, the category itself
    assert tree["Leaf 0-0"].pk  # the leaves exist, below the children
