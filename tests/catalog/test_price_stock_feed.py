"""import_products --only price,stock: a feed by SKU, beside carts holding reservations."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.models import Product
from core import mongo
from inventory.models import Cart, Inventory
from tests.support.inventory import add, assert_invariant, fill_carts, inventory
from tests.support.threads import run_together

from .importfiles import album_row, snapshot, write_csv

SKUS = [f"IMP-{n:05d}" for n in range(10)]


@pytest.fixture
def catalog(make_tree, tmp_path):
    make_tree({"Music": {"Rock": {}}})
    call_command("import_products", write_csv(tmp_path / "c.csv", [album_row(n, stock="10") for n in range(10)]),
                 stdout=StringIO())


def feed(tmp_path, rows, *args):
    out = StringIO()
    call_command("import_products", write_csv(tmp_path / "feed.csv", rows), "--only", "price,stock", *args,
                 stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_feed_updates_price_and_stock_and_nothing_else(catalog, tmp_path):
    before = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    out = feed(tmp_path, [{"sku": "IMP-00001", "price": "5.00", "stock": "3", "title": "ignored"},
                          {"sku": "IMP-00002", "price": "9.99", "stock": "10"}])
    assert "1 changed, 1 unchanged" in out and "stock: 0 created, 1 changed" in out
    after = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    assert after["pricing"] == {"list": 1200, "retail": 500, "savings": 700, "pct_savings": 58}
    assert {k: v for k, v in after.items() if k != "pricing"} == {k: v for k, v in before.items() if k != "pricing"}
    assert Inventory.objects.available("IMP-00001") == 3
    assert inventory("IMP-00001")["stocked"] == 3


def test_a_feed_keeps_the_reservations_of_carts(catalog, tmp_path):
    carts = fill_carts(3, SKUS[:5], qty=2)
    out = feed(tmp_path, [{"sku": sku, "price": "8.00", "stock": "50"} for sku in SKUS])
    assert "10 changed" in out
    for sku in SKUS[:5]:
        document = inventory(sku)
        assert document["qty"] == 50 and sorted(e["cart_id"] for e in document["carted"]) == sorted(carts)
        assert document["stocked"] == 50 + 6
    assert all(Product.objects.get_by_sku(sku).pricing.retail == 800 for sku in SKUS)
    assert_invariant()


def test_a_feed_beside_shoppers_keeps_the_invariant(catalog, tmp_path):
    """Shoppers reserve, change and give back units while two feeds set the stock: every
    reservation stays, and qty + carted + sold = stocked for every SKU."""
    levels = iter(range(100))

    def shopper():
        cart = Cart.objects.create_cart()
        for sku in SKUS:
            add(cart.id, sku, 2)
            Cart.objects.update_quantity(cart.id, sku, 1)
        return cart.id

    def stock_feed(level):
        def run():
            rows = [{"sku": sku, "stock": str(level)} for sku in SKUS]
            path = write_csv(tmp_path / f"feed-{next(levels)}.csv", rows)
            call_command("import_products", path, "--only", "stock", stdout=StringIO())
        return run

    carts = run_together(shopper, shopper, shopper, stock_feed(40), stock_feed(30))[:3]
    for sku in SKUS:
        held = {e["cart_id"]: e["qty"] for e in inventory(sku)["carted"]}
        assert all(held.get(cart) == 1 for cart in carts), (held, carts, inventory(sku))
    assert_invariant()


def test_an_unknown_sku_is_a_bad_row_and_changes_nothing(catalog, tmp_path):
    before = snapshot()
    with pytest.raises(CommandError, match="line 3, column sku: no product or variant with SKU NOPE"):
        feed(tmp_path, [{"sku": "IMP-00001", "price": "1.00"}, {"sku": "NOPE", "price": "1.00"}])
    with pytest.raises(CommandError, match="line 2, column stock: a stock cannot be negative"):
        feed(tmp_path, [{"sku": "IMP-00001", "stock": "-1"}])
    assert snapshot() == before


def test_a_product_with_variants_is_priced_and_stocked_through_its_variants(catalog, tmp_path):
    call_command("import_products", write_csv(tmp_path / "v.csv", [{
        "sku": "IMP-00001-LP", "type": "Audio Album", "variant_of": "IMP-00001", "price": "19.99", "stock": "2",
        "details.format": "Vinyl"}]), stdout=StringIO())
    before = snapshot()
    with pytest.raises(CommandError, match="line 2, column sku: IMP-00001 is sold as its variants: give their SKUs"):
        feed(tmp_path, [{"sku": "IMP-00001", "price": "1.00"}, {"sku": "IMP-00001-LP", "price": "18.00"}])
    assert snapshot() == before
    assert "1 changed" in feed(tmp_path, [{"sku": "IMP-00001-LP", "price": "18.00", "stock": "4"}])
    product = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    assert product["pricing"]["retail"] == 1800 and product["variants"][0]["pricing"]["retail"] == 1800
    assert Inventory.objects.available("IMP-00001-LP") == 4
