"""``manage.py populatedb --products N``: a generated catalog through the managers."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from catalog.models import Category, Product
from inventory.models import Inventory
from tests.support.tree import wrong_ancestors


def populate(*args):
    out = io.StringIO()
    call_command("populatedb", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_generates_the_tree_products_with_tracks_and_stock():
    assert "Generated 130 categories and 40 products" in populate(
        "--products", "40", "--categories", "130", "--stock", "7")
    tree = Category.objects.tree()
    assert len(tree) == 130
    assert [c.slug for c in tree if c.parent_id is None] == [f"top-{t}" for t in range(10)]
    assert wrong_ancestors() == {}
    leaves = {c.pk for c in tree if c.depth == 2}
    products = list(Product.objects.all())
    assert len(products) == 40
    for product in products:
        assert len(product.categories) == 1 and product.categories[0] in leaves
        assert 8 <= len(product.details["tracks"]) <= 14
        assert product.pricing.list == sum(t["price"] for t in product.details["tracks"])
        assert product.keywords and product.title_lower == product.title.casefold()
    # Every SKU sold has its stock: album 7 and 27 sell CD and vinyl variants, the others their own SKU.
    sold = [sku for p in products for sku in p.sellable_skus]
    assert sorted(p.sku for p in products if p.variants) == ["GEN-000007", "GEN-000027"]
    assert Inventory.objects.available_many([p.sku for p in products] + sold) == {sku: 7 for sku in sold}
    page = Client().get("/c/top-0/")
    assert page.status_code == 200
    assert page.context["page"].paginator.count == sum(
        1 for p in products if any(a.slug == "top-0" for a in
                                   Category.objects.get(pk=p.categories[0]).ancestors))


def test_the_same_seed_makes_the_same_catalog():
    populate("--products", "5", "--categories", "101")
    first = sorted((p.sku, p.title, p.pricing.retail) for p in Product.objects.all())
    populate("--products", "5", "--categories", "101", "--reset")
    assert sorted((p.sku, p.title, p.pricing.retail) for p in Product.objects.all()) == first


def test_refuses_a_catalog_that_is_not_empty_and_changes_nothing():
    populate("--products", "3", "--categories", "101")
    with pytest.raises(CommandError, match="not empty"):
        populate("--products", "3")
    assert Product.objects.count() == 3 and Category.objects.count() == 101


@pytest.mark.parametrize("args", [["--products", "-1"], ["--products", "5", "--categories", "50"],
                                  ["--products", "5", "--stock", "-2"]])
def test_refuses_bad_numbers_and_writes_nothing(args):
    with pytest.raises(CommandError):
        populate(*args)
    assert not Category.objects.exists()


def test_age_writes_a_year_of_trade_in_the_shops_schema_and_keeps_the_invariant():
    from inventory.models import Cart, Inventory
    from orders.models import Order, PaymentAttempt
    from tests.support.inventory import assert_invariant

    out = populate("--age", "--aged-carts", "60", "--aged-orders", "25", "--aged-skus", "30", "--verbosity", "0")
    assert "Aged the database: 60 carts, 25 orders with their payments, 30 SKUs." in out
    assert Inventory.objects.collection.count_documents({}) == 30
    assert Cart.objects.collection.count_documents({"status": "complete"}) == 25
    assert Cart.objects.collection.count_documents({"status": {"$in": ["expired", "merged"]}}) == 35
    assert PaymentAttempt.objects.collection.count_documents({"status": "completed"}) == 25
    order = Order.objects.collection.find_one({})
    attempt = PaymentAttempt.objects.get_raw(str(order["_id"]))
    assert attempt["order_number"] == order["number"] and attempt["cart_id"] == order["cart_id"]
    assert Order.objects.get_by_number(order["number"]).lines
    assert_invariant()  # qty + carted + sold = stocked for every aged SKU
    assert Order.objects.next_number() > max(d["number"] for d in Order.objects.collection.find({}, {"number": 1}))
    with pytest.raises(CommandError, match="already has carts or orders"):
        populate("--age", "--aged-carts", "5", "--aged-orders", "1", "--aged-skus", "1", "--verbosity", "0")


def test_populatedb_needs_something_to_generate():
    with pytest.raises(CommandError, match="--products N, --age, or both"):
        populate()


def test_a_bulk_load_bumps_the_epoch_once_not_a_version_per_product():
    from catalog.models import CatalogVersion

    reader = Client()
    empty = reader.get("/").content  # the home page cached, with no product
    epoch = CatalogVersion.objects.current()
    populate("--products", "40", "--categories", "130")
    names = [d["name"] for d in CatalogVersion.objects.collection.find({}, {"name": 1})]
    assert not [n for n in names if n.startswith(("product:", "cards:", "faceted:"))], names
    assert CatalogVersion.objects.current() != epoch
    assert reader.get("/").content != empty  # the cached page is not served again


def test_keeps_the_search_of_every_common_word(monkeypatch):
    from catalog.listings import search_summary
    from catalog.models import SearchSummary

    monkeypatch.setattr(search_summary, "KEEP_FROM", 5)
    populate("--products", "60", "--categories", "130")
    counts = {}
    for document in Product.objects.collection.find({}, {"keywords": 1}):
        for word in document["keywords"]:
            counts[word] = counts.get(word, 0) + 1
    kept = {d["_id"]: d["total"] for d in SearchSummary.objects.collection.find({}, {"total": 1})}
    assert kept and kept == {word: n for word, n in counts.items() if n >= 5}
