"""Storefront pages: home, category (breadcrumbs, JSON-LD, sorting, pages), product."""

import json
import re

import pytest
from django.test import Client

from catalog.models import Category, Pricing, Product
from core.mongo.counter import count_operations


def json_ld(response):
    match = re.search(rb'<script type="application/ld\+json">(.*?)</script>', response.content, re.S)
    return json.loads(match.group(1))


def product_skus(response):
    return [p.sku for p in response.context["page"].object_list]


def add_products(category, count, prefix="P"):
    for n in range(count):
        Product.objects.create(
            sku=f"{prefix}-{n:03d}", type="Audio Album", title=f"{prefix} album {n:03d}",
            categories=[category.pk], pricing=Pricing.from_prices(1000 + n, 900 + n),
        )


def test_home_shows_the_top_categories_their_subcategories_and_products(client, chinook):
    response = client.get("/")
    assert response.status_code == 200
    names = [c.name for c in response.context["top_categories"]]
    assert names == ["Music", "Video"]
    music = response.context["top_categories"][0]
    assert "Rock" in [c.name for c in music.subcategories]
    assert len(response.context["newest"]) == 8
    assert b'href="/c/rock/"' in response.content


def test_category_page_breadcrumbs_are_root_first_and_linked(client, chinook):
    response = client.get("/c/heavy-metal/")
    assert response.status_code == 200
    html = response.content.decode()
    trail = html[html.index('class="breadcrumbs"'):html.index("</nav>", html.index('class="breadcrumbs"'))]
    links = re.findall(r'href="([^"]+)">([^<]+)<', trail)
    assert links == [("/", "Home"), ("/c/music/", "Music"), ("/c/rock/", "Rock"), ("/c/metal/", "Metal")]
    assert '<span aria-current="page">Heavy Metal</span>' in trail


def test_category_page_has_breadcrumb_list_json_ld(client, chinook):
    data = json_ld(client.get("/c/heavy-metal/"))
    assert data["@type"] == "BreadcrumbList"
    items = data["itemListElement"]
    assert [(i["position"], i["name"]) for i in items] == [
        (1, "Music"), (2, "Rock"), (3, "Metal"), (4, "Heavy Metal")]
    assert items[0]["item"] == "http://testserver/c/music/"


def test_json_ld_cannot_close_its_script_element(client):
    Category.writes.create_category("</script><script>alert(1)</script>", slug="x")
    response = client.get("/c/x/")
    assert b"<script>alert(1)" not in response.content
    assert json_ld(response)["itemListElement"][0]["name"] == "</script><script>alert(1)</script>"


def test_category_page_lists_the_category_and_its_descendants(client, chinook):
    response = client.get("/c/rock/")
    assert response.context["page"].paginator.count == 180
    assert len(response.context["page"].object_list) == 24
    # In sibling order: load_catalog adds them in chinook.GENRE_TREE's order.
    assert [c.name for c in response.context["subcategories"]] == [
        "Metal", "Alternative & Punk", "Rock And Roll"]
    metal = client.get("/c/metal/").context["page"].paginator.count
    heavy = client.get("/c/heavy-metal/").context["page"].paginator.count
    assert heavy == 3 and metal > heavy


@pytest.mark.parametrize("sort, key, reverse", [
    ("price", lambda p: p.pricing.retail, False),
    ("-price", lambda p: p.pricing.retail, True),
    ("title", lambda p: p.title, False),
    ("newest", lambda p: p.details["issue_date"], True),
])
def test_category_page_sorts(client, chinook, sort, key, reverse):
    response = client.get(f"/c/rock/?sort={sort}")
    products = response.context["page"].object_list
    assert [key(p) for p in products] == sorted((key(p) for p in products), reverse=reverse)
    assert response.context["sort"] == sort
    if sort == "price":
        cheapest = min(Product.objects.filter(type="Audio Album"), key=lambda p: p.pricing.retail)
        assert products[0].pricing.retail == cheapest.pricing.retail


def test_category_pages_do_not_overlap(client, chinook):
    seen = []
    for number in range(1, 9):
        seen += product_skus(client.get(f"/c/rock/?sort=title&page={number}"))
    assert len(seen) == len(set(seen)) == 180


@pytest.mark.parametrize("query", ["page=abc", "page=-3", "page=0", "page=99999", "sort=%24where",
                                   "sort=", "page=1.5&sort[]=x", "page=%00"])
def test_bad_page_or_sort_never_fails(client, chinook, query):
    response = client.get(f"/c/rock/?{query}")
    assert response.status_code == 200
    assert response.context["page"].object_list


def test_unknown_category_and_product_are_404(client, chinook):
    assert client.get("/c/no-such-category/").status_code == 404
    assert client.get("/p/NO-SUCH-SKU/").status_code == 404
    response = client.get("/p/NO-SUCH-SKU/")
    assert b"There is no such page" in response.content


def test_product_page_shows_breadcrumbs_price_and_tracks(client, chinook):
    response = client.get("/p/CHK-0001/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "For Those About To Rock We Salute You" in html
    assert "$7.99" in html and "$9.90" in html
    assert "5:43" in html  # 343,719 ms
    assert [c["name"] for c in response.context["crumbs"]] == ["Music", "Rock"]
    assert [i["name"] for i in json_ld(response)["itemListElement"]] == ["Music", "Rock"]


def test_product_page_costs_its_reads_and_the_view_event(chinook):
    with count_operations() as cold:
        Client().get("/p/CHK-0001/")
    with count_operations() as warm:
        Client().get("/p/CHK-0001/")
    # the catalog version, the product, its stock, its categories, the top categories, its
    # type (the labels of its attributes); the view event. Warm (catalog cache): the version
    # and the stock.
    assert (cold.reads, cold.writes) == (6, 1), cold.operations
    assert (warm.reads, warm.writes) == (2, 1), warm.operations


def deep_tree(make_tree, depth):
    spec = node = {}
    for level in range(depth):
        node[f"Level {level}"] = {}
        node = node[f"Level {level}"]
    return make_tree(spec)


@pytest.mark.parametrize("depth, products", [(2, 5), (8, 60)])
def test_category_page_costs_at_most_seventeen_round_trips_two_when_cached(make_tree, depth, products):
    made = deep_tree(make_tree, depth)
    leaf = made[f"Level {depth - 1}"]
    add_products(leaf, products)
    for url in ["/c/level-0/", f"/c/level-0/?sort=price&page={products // 24 + 1}"]:
        with count_operations() as ops:
            response = Client().get(url)
        assert response.status_code == 200
        assert response.context["page"].paginator.count == products
        # the slug's id, versions, category, subtree, top categories, the category's kept
        # count (never a count of its products), the page's order, the versions of the
        # products it shows (which key its cards), its cards (by id), the page's stock; the
        # facet counts (their parts' versions, the kept counts, and for a category never
        # counted its products and a write of the kept counts) and the sold-out SKUs (for
        # the in-stock count); the versions read again after a count (a count is kept only
        # if they did not move while it counted)
        assert ops.total <= 17, repr(ops.operations)
        assert ("products", "count") not in ops.operations
        if "sort=price" in url:  # its order is kept from the second request, which reads the
            Client().get(url)    # versions of the prices it shows (catalog/listings/manager.py)
        with count_operations() as warm:
            Client().get(url)
        assert warm.operations == [("catalog_versions", "find"), ("inventory", "find")]


def test_money_filter():
    from core.templatetags.money import money

    assert (money(0), money(99), money(123456), money(-250)) == ("$0.00", "$0.99", "$1,234.56", "-$2.50")


def test_quantity_box_allows_the_per_line_maximum(client, chinook, settings):
    settings.CART_MAX_LINE_QTY = 7
    assert b'min="1" max="7"' in client.get("/p/CHK-0001/").content


def test_categories_stored_without_a_position_cost_no_extra_round_trip(make_tree):
    # A category written without ``position`` (by hand, by an older import) reads as
    # position None; a deferred field would cost one query per category shown.
    from core.mongo import get_collection

    make_tree({"Music": {"Rock": {}, "Jazz": {}}, "Video": {}})
    get_collection("categories").update_many({}, {"$unset": {"position": ""}})
    with count_operations() as ops:
        response = Client().get("/c/music/")
    assert response.status_code == 200
    # the slug's id, versions, category, subcategories and top categories, the kept count
    # (none: a category that never listed a product has no document) and the count of its
    # products; no products: no page and no stock to read; the facet counts and the
    # sold-out SKUs; the versions of the facet counts' parts, the kept counts (none) and the
    # write of its (empty) counts, after the versions read again (kept only if they did not
    # move while it counted)
    assert ops.total == 14, repr(ops.operations)
