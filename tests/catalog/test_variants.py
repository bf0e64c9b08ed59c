"""Variants: a product selling several SKUs, each with its own price and stock
(``catalog/products/variants.py``), through the product page, the cart, checkout, the order, the rollups
and the API."""

import re

import pytest
from django.core.management import call_command
from django.db import IntegrityError

from analytics.models import RollupProgress
from catalog.models import Pricing, Product, Variant
from core.mongo.counter import count_operations
from inventory.models import Inventory
from orders.models import Order

from tests.support.inventory import assert_invariant, inventory
from tests.support.products import make_product
from tests.support.shopper import CARD, add

FORMATS = [("LTBR-CD", "CD", 1299), ("LTBR-LP", "Vinyl", 2499), ("LTBR-DL", "Digital", 899)]


def make_album(stock=(1, 2, 1), categories=()):
    """'Let There Be Rock' on CD, vinyl and as a download, each stocked with ``stock`` units."""
    product = make_product("Let There Be Rock", sku="LTBR", categories=categories)
    product.variants = [Variant(sku=sku, options={"format": label}, pricing=Pricing.from_prices(cents, cents))
                        for sku, label, cents in FORMATS]
    product.save()
    for (sku, _, _), qty in zip(FORMATS, stock):
        Inventory.objects.ensure_stock([sku], qty)
    return product


def choices(page):
    """``{variant SKU: (enabled, checked)}``: the product page's radio buttons."""
    found = {}
    for tag in re.findall(r'<input type="radio" name="sku"[^>]*>', page):
        sku = re.search(r'value="([^"]+)"', tag).group(1)
        found[sku] = (" disabled" not in tag, " checked" in tag)
    return found


def test_the_product_document_keeps_its_skus_and_its_cheapest_price():
    product = make_album()
    stored = Product.objects.collection.find_one({"_id": product.pk})
    assert stored["skus"] == ["LTBR", "LTBR-CD", "LTBR-LP", "LTBR-DL"]
    assert stored["variants"][1] == {"sku": "LTBR-LP", "options": {"format": "Vinyl"}, "image": "",
                                     "pricing": {"list": 2499, "retail": 2499, "savings": 0, "pct_savings": 0}}
    assert stored["pricing"]["retail"] == 899  # the cheapest variant's: listings sort and filter by it
    assert product.sellable_skus == ["LTBR-CD", "LTBR-LP", "LTBR-DL"]


def test_the_product_of_any_sku_is_one_indexed_read():
    make_album()
    with count_operations() as ops:
        owner = Product.objects.get_by_sku("LTBR-LP")
    assert owner.sku == "LTBR" and ops.total == 1
    plan = str(Product.objects.collection.find({"skus": "LTBR-LP"}).explain()["queryPlanner"]["winningPlan"])
    assert "IXSCAN" in plan and "COLLSCAN" not in plan
    with pytest.raises(Product.DoesNotExist):
        Product.objects.get_by_sku("NOPE")


def test_prices_by_sku_are_one_read_and_name_each_variant():
    make_album()
    plain = make_product("Plain", sku="PLAIN", list_cents=500)
    with count_operations() as ops:
        facts = Product.objects.prices_and_weights(["LTBR-LP", "LTBR-DL", "PLAIN", "LTBR", "NOPE"])
    assert ops.total == 1
    assert {sku: price for sku, (price, _) in facts.items()} == {"LTBR-LP": 2499, "LTBR-DL": 899, "PLAIN": 500}
    assert plain.sellable_skus == ["PLAIN"]
    assert Product.objects.line_titles(["LTBR-LP", "PLAIN"]) == {
        "LTBR-LP": "Let There Be Rock — Vinyl", "PLAIN": "Plain"}


def test_a_sku_used_twice_across_products_and_variants_is_refused_by_the_index():
    make_album()
    other = make_product("Other", sku="OTHER")
    other.variants = [Variant(sku="LTBR-LP", options={"format": "Vinyl"}, pricing=Pricing.from_prices(100, 100))]
    with pytest.raises(IntegrityError):
        other.save()
    with pytest.raises(IntegrityError):
        make_product("Named like a variant", sku="LTBR-CD")
    assert Product.objects.collection.count_documents({"skus": "LTBR-LP"}) == 1


def test_three_variants_sold_out_one_by_one(client):
    """Each variant has its own stock: carted and checked out, a sold-out variant shows
    unavailable while the others stay buyable, and the stock invariant holds throughout."""
    make_album(stock=(1, 2, 1))
    page = client.get("/p/LTBR/").content.decode()
    assert choices(page) == {"LTBR-CD": (True, True), "LTBR-LP": (True, False), "LTBR-DL": (True, False)}
    assert "Vinyl · $24.99" in page and "Only 2 left" in page

    sold = []
    for sku, qty in [("LTBR-CD", 1), ("LTBR-LP", 2), ("LTBR-DL", 1)]:
        response = add(client, sku=sku, qty=qty)
        assert response.status_code == 302 and response["Location"] == f"/p/LTBR/?variant={sku}"
        response = client.post("/checkout/", CARD)
        assert response.status_code == 302, response.content.decode()[:2000]
        assert inventory(sku)["qty"] == 0 and inventory(sku)["carted"] == []
        sold.append(sku)
        assert_invariant()
        page = client.get("/p/LTBR/").content.decode()
        offered = choices(page)
        for variant in offered:
            assert offered[variant][0] == (variant not in sold), (variant, offered)
        # The sold-out one can no longer be carted; nothing changes.
        refused = add(client, sku=sku, follow=True).content.decode()
        assert "left" in refused or "sold out" in refused.lower() or "available" in refused
        assert inventory(sku)["qty"] == 0 and inventory(sku)["carted"] == []
    assert 'class="stock sold-out" id="stock-status"' in page
    assert "Add to cart</button>" in page and "disabled aria-describedby" in page
    assert sorted(Order.objects.sold_by_sku().items()) == [("LTBR-CD", 1), ("LTBR-DL", 1), ("LTBR-LP", 2)]
    assert_invariant()


def test_cart_checkout_order_rollup_and_api_name_the_variant(client, make_tree):
    tree = make_tree({"Music": {}})
    make_album(stock=(5, 5, 5), categories=[tree["Music"].pk])
    add(client, sku="LTBR-LP", qty=2)
    cart = client.get("/cart/").content.decode()
    assert "Let There Be Rock — Vinyl" in cart and "$24.99" in cart
    checkout = client.get("/checkout/")
    assert checkout.context["totals"].subtotal == 2 * 2499
    response = client.post("/checkout/", CARD)
    order = Order.objects.get_by_number(response["Location"].split("/")[-2])
    assert [(line.sku, line.title, line.qty, line.price) for line in order.lines] == [
        ("LTBR-LP", "Let There Be Rock — Vinyl", 2, 2499)]
    assert "LTBR-LP" in client.get(response["Location"]).content.decode()

    call_command("rollup_stats", "--lag", "0")
    daily = RollupProgress.objects.buckets("daily", "sku:LTBR-LP")
    assert [(b["units"], b["total"]) for b in daily] == [(2, order.total)]  # what was paid
    music = RollupProgress.objects.buckets("daily", f"category:{tree['Music'].pk}")
    assert [b["units"] for b in music] == [2]  # a variant sells in its product's categories
    top = RollupProgress.objects.top("sku", "daily")
    assert [(row["ref"], row["name"]) for row in top] == [("LTBR-LP", "Let There Be Rock — Vinyl")]

    document = client.get("/api/v1/products/LTBR").json()
    assert [v["sku"] for v in document["variants"]] == ["LTBR-CD", "LTBR-LP", "LTBR-DL"]
    assert client.get("/api/v1/products/LTBR-LP/title").json() == "Let There Be Rock"  # its product
    assert "skus" not in document
    listing = client.get("/api/v1/categories/music/products").json()["products"]
    assert [v["sku"] for v in listing[0]["variants"]] == ["LTBR-CD", "LTBR-LP", "LTBR-DL"]
    assert listing[0]["variants"][1]["options"] == {"format": "Vinyl"}


def test_the_choice_works_without_javascript(client):
    """The page's form posts the chosen radio button's SKU: what a browser without scripts sends."""
    make_album(stock=(0, 3, 1))
    page = client.get("/p/LTBR/?variant=LTBR-DL").content.decode()
    assert choices(page) == {"LTBR-CD": (False, False), "LTBR-LP": (True, False), "LTBR-DL": (True, True)}
    form = re.search(r'<form class="add-to-cart".*?</form>', page, re.S).group(0)
    assert 'name="sku" type="hidden"' not in form and 'type="hidden" name="sku"' not in form
    response = client.post("/cart/add/", {"sku": "LTBR-LP", "qty": "1"}, follow=True)
    assert "Added 1 × “Let There Be Rock — Vinyl”" in response.content.decode()
    assert inventory("LTBR-LP")["qty"] == 2 and inventory("LTBR-DL")["qty"] == 1


def test_the_page_sku_of_a_product_with_variants_is_not_sold(client):
    make_album()
    response = client.post("/cart/add/", {"sku": "LTBR", "qty": "1"}, follow=True)
    assert "Choose one of" in response.content.decode()
    assert client.session.get("cart_id") is None


def test_a_variant_sku_url_opens_its_product_with_it_chosen(client):
    make_album()
    response = client.get("/p/LTBR-LP/")
    assert response.status_code == 302 and response["Location"] == "/p/LTBR/?variant=LTBR-LP"
    assert client.get("/p/NOPE/").status_code == 404


def test_a_listing_card_counts_every_variant_stock(client, make_tree):
    tree = make_tree({"Music": {}})
    make_album(stock=(0, 0, 1), categories=[tree["Music"].pk])
    page = client.get("/c/music/").content.decode()
    assert "Sold out" not in page
    Inventory.objects.set_stock("LTBR-DL", 0)
    assert "Sold out" in client.get("/c/music/").content.decode()


def test_in_stock_facet_counts_a_product_by_its_variants(client, make_tree, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    tree = make_tree({"Music": {}})
    make_album(stock=(0, 0, 1), categories=[tree["Music"].pk])
    make_product("Single", sku="ONE", categories=[tree["Music"].pk])
    Inventory.objects.ensure_stock(["ONE"], 3)

    def in_stock():
        response = client.get("/c/music/?in_stock=1")
        listed = [p.sku for p in response.context["page"].object_list]
        return client.get("/c/music/").context["facets"].in_stock["count"], sorted(listed)

    assert in_stock() == (2, ["LTBR", "ONE"])  # one variant left is in stock
    Inventory.objects.set_stock("LTBR-DL", 0)
    assert in_stock() == (1, ["ONE"])  # every variant sold out: the product is not


def test_restock_takes_a_variant_sku_and_refuses_the_page_sku():
    from io import StringIO

    from django.core.management import CommandError

    make_album(stock=(1, 1, 1))
    call_command("restock", "LTBR-LP", "4", stdout=StringIO())
    assert inventory("LTBR-LP")["qty"] == 5
    with pytest.raises(CommandError, match="sells only theirs"):
        call_command("restock", "LTBR", "4", stdout=StringIO())
    assert inventory("LTBR") is None


def headline(page):
    """``(price, was, save, SKU, stock line)`` as the product page shows them above its form."""
    def text(pattern):
        found = re.search(pattern, page, re.S)
        return found.group(1).strip() if found else None

    return (text(r"<span data-variant-price>([^<]*)</span>"), text(r"<s data-variant-was[^>]*>([^<]*)</s>"),
            text(r"<em data-variant-save[^>]*>([^<]*)</em>"), text(r"<span data-variant-sku>([^<]*)</span>"),
            text(r'id="stock-status">([^<]*)</p>'))


def test_the_page_shows_the_chosen_variants_price_sku_and_stock(client, settings):
    settings.STOCK_LOW_THRESHOLD = 5
    product = make_album(stock=(1, 20, 0))
    product.variants[1].pricing = Pricing.from_prices(2999, 2499)  # Vinyl, on offer
    product.save()
    vinyl = client.get("/p/LTBR/?variant=LTBR-LP").content.decode()
    assert headline(vinyl) == ("$24.99", "$29.99", "you save $5.00 (16%)", "LTBR-LP", "In stock")
    assert vinyl.count(">In stock<") == 1  # one stock line; the options say only "Only 1 left"...
    assert "Only 1 left" in vinyl and "Sold out" in vinyl  # ... and "Sold out"
    cd = client.get("/p/LTBR/?variant=LTBR-CD").content.decode()
    assert headline(cd) == ("$12.99", "", "", "LTBR-CD", "Only 1 left")
    # A sold-out variant asked for: the first in stock is chosen and shown.
    assert headline(client.get("/p/LTBR/?variant=LTBR-DL").content.decode())[3] == "LTBR-CD"


def test_a_product_without_variants_shows_its_own_sku_once(client):
    make_product("Plain", sku="PLAIN-1")
    Inventory.objects.ensure_stock(["PLAIN-1"], 20)
    page = client.get("/p/PLAIN-1/").content.decode()
    assert headline(page)[3] == "PLAIN-1" and page.count("PLAIN-1</span>") == 1
