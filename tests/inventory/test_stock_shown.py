"""Stock as pages show it (inventory/shown.py): kept STOCK_SHOWN_SECONDS per SKU, forgotten by
every stock write, so a warm product page reads only the catalog's versions."""

import time

import pytest
from django.core.cache import cache
from django.test import Client

from core import clock
from core.mongo.counter import count_operations
from inventory.models import Cart, Inventory
from inventory.shown import PREFIX

SKU = "CHK-0001"


@pytest.fixture
def kept(settings, chinook):
    """Stock kept 2 seconds (the test settings read it every time), 5 units of SKU."""
    settings.STOCK_SHOWN_SECONDS = 2
    Inventory.objects.set_stock(SKU, 5)


def stock_line(page):
    body = page.content.decode()
    start = body.index('id="stock-status"')
    return body[body.index(">", start) + 1:body.index("</p>", start)]


def test_a_warm_product_page_reads_only_the_catalog_versions(kept):
    Client().get(f"/p/{SKU}/")
    with count_operations() as warm:
        page = Client().get(f"/p/{SKU}/")
    assert page.status_code == 200
    # The version of what it shows; the view event. No stock read: it is kept.
    assert (warm.reads, warm.writes) == (1, 1), warm.operations
    assert not [op for op in warm.operations if op[0] == "inventory"]


@pytest.mark.parametrize("url", ["/c/rock/", "/c/rock/?sort=price", "/search/?q=love"])
def test_a_warm_listing_reads_only_the_catalog_versions(kept, url):
    """Its cards' stock comes from what is kept, like the product page's; its cards, counts and
    order from the cache: one read, no read of the products or the stock. Asked once before:
    a page sorted by price reads its category's price bands' versions before its order
    (``catalog.store.cache.cached``'s ``family``) and a search its products' before their cards,
    so each keeps its page from its first visit."""
    Client().get(url)
    with count_operations() as warm:
        page = Client().get(url)
    assert page.status_code == 200 and page.context["page"].object_list
    assert warm.reads == 1 and warm.operations[0][0] == "catalog_versions", warm.operations
    assert not [op for op in warm.operations if op[0] in ("inventory", "products")]


def test_without_keeping_the_page_reads_the_stock_each_time(settings, chinook):
    settings.STOCK_SHOWN_SECONDS = 0
    Client().get(f"/p/{SKU}/")
    with count_operations() as warm:
        Client().get(f"/p/{SKU}/")
    assert ("inventory", "find") in warm.operations


def test_a_cart_taking_units_shows_on_the_next_request(kept):
    assert stock_line(Client().get(f"/p/{SKU}/")) == "Only 5 left"
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, SKU, 2, {"title": "t", "price": 99}, 10)
    assert stock_line(Client().get(f"/p/{SKU}/")) == "Only 3 left"
    Cart.objects.update_quantity(cart.id, SKU, 5)
    assert stock_line(Client().get(f"/p/{SKU}/")) == "Sold out"
    Cart.objects.remove_item(cart.id, SKU)
    assert stock_line(Client().get(f"/p/{SKU}/")) == "Only 5 left"


@pytest.mark.parametrize("write", [
    lambda: Inventory.objects.restock(SKU, 1),
    lambda: Inventory.objects.adjust_stock(SKU, -1),
    lambda: Inventory.objects.set_stock(SKU, 1),
    lambda: Inventory.objects.set_stock_many({SKU: 1}),
    lambda: Inventory.objects.return_units({SKU: 1}),
    lambda: Inventory.objects.reserve("cart-x", SKU, 1, clock.now()),
    lambda: Inventory.objects.ensure_stock([SKU], 1),
], ids=["restock", "adjust", "set", "set_many", "return_units", "reserve", "ensure"])
def test_every_stock_write_forgets_what_was_kept(kept, write):
    Inventory.objects.shown_many([SKU])
    assert cache.get(PREFIX + SKU) == 5
    write()
    assert cache.get(PREFIX + SKU) is None


def test_an_expiry_forgets_the_skus_it_returns(kept):
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, SKU, 2, {"title": "t", "price": 99}, 10)
    Inventory.objects.shown_many([SKU])
    assert cache.get(PREFIX + SKU) == 3
    Cart.expiry.expire_cart(cart.id)
    assert cache.get(PREFIX + SKU) is None
    assert Inventory.objects.shown_many([SKU]) == {SKU: 5}


def test_a_write_another_process_made_shows_once_the_entry_lapses(settings, kept):
    settings.STOCK_SHOWN_SECONDS = 1
    assert Inventory.objects.shown_many([SKU]) == {SKU: 5}
    # Another process's write: this process's entry is not forgotten.
    Inventory.objects.collection.update_one({"_id": SKU}, {"$inc": {"qty": -1, "stocked": -1}})
    assert Inventory.objects.shown_many([SKU]) == {SKU: 5}
    time.sleep(1.1)
    assert Inventory.objects.shown_many([SKU]) == {SKU: 4}


def test_a_sku_without_stock_is_kept_as_having_none(kept):
    with count_operations() as first:
        assert Inventory.objects.shown_many(["NO-SUCH-SKU"]) == {}
    with count_operations() as second:
        assert Inventory.objects.shown_many(["NO-SUCH-SKU"]) == {}
    assert first.reads == 1 and second.reads == 0


def test_adding_more_than_shown_is_still_refused_by_the_stock(kept, client):
    """A shown figure a moment old never sells a unit: the add decides on the inventory."""
    assert stock_line(client.get(f"/p/{SKU}/")) == "Only 5 left"
    Inventory.objects.collection.update_one({"_id": SKU}, {"$set": {"qty": 1}})  # another process
    assert stock_line(client.get(f"/p/{SKU}/")) == "Only 5 left"
    response = client.post("/cart/add/", {"sku": SKU, "qty": 3}, follow=True)
    assert Inventory.objects.available(SKU) == 1
    assert "Only 1 left" in response.content.decode() or "only 1" in response.content.decode().lower()
