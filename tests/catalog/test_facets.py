"""Facets on category and search pages (``catalog/listings/facets.py``, ``catalog/listings/facet_manager.py``).

Every count a page shows equals a plain ``count_documents`` of the products it
stands for (the listing, the other facets' choices, that value), on a
generated catalog, before and after edits; choices are OR within a facet and
AND across; what the URL asks that the listing does not hold is ignored and
never reaches the database; a warm page costs what a page without facets costs.
"""

import random

import pytest
from django.core.cache import caches
from django.test import Client

from catalog.transfer.generate import GENRES, populate
from catalog.models import Category, Pricing, Product
from core.mongo import get_collection
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.security.conftest import HOSTILE_VALUES
from tests.support.database import built_once
from tests.support.products import make_product

# The bands written out again (not from catalog.listings.facets), in cents.
BANDS = {"0-5": (0, 500), "5-10": (500, 1000), "10-20": (1000, 2000), "20-": (2000, None)}
FIELDS = {"type": "type", "genre": "details.genre", "artist": "details.artist",
          "format": "variants.options.format"}


def band(key):
    low, high = BANDS[key]
    return {"pricing.retail": {"$gte": low, **({} if high is None else {"$lt": high})}}


def sold_out():
    return [d["_id"] for d in get_collection("inventory").find({"qty": {"$lte": 0}}, {"_id": 1})]


def conditions(base, chosen, leave_out=None):
    """The plain filters of ``chosen`` (``{code: [values]}``, ``price``, ``in_stock``) but
    ``leave_out``'s, after ``base``."""
    found = list(base)
    for code, values in chosen.items():
        if code == leave_out:
            continue
        if code == "price":
            found.append({"$or": [band(key) for key in values]})
        elif code == "in_stock":
            found.append({"sku": {"$nin": sold_out()}})
        else:
            found.append({FIELDS[code]: {"$in": list(values)}})
    return found


def plain(filters):
    return get_collection("products").count_documents({"$and": filters})


def assert_counts_are_plain(url, base, chosen, client=None, extra=None, plain=plain):
    """Request ``url`` with ``chosen`` (and the parameters ``extra``) and check every count
    shown against a plain count (``plain``: a function of a list of filters, by default a
    ``count_documents`` of their ``$and``)."""
    params = {**(extra or {}), **{code: values for code, values in chosen.items()}}
    if "in_stock" in params:
        params["in_stock"] = "1"
    response = (client or Client()).get(url, params)
    assert response.status_code == 200
    panel = response.context["facets"]
    assert response.context["page"].paginator.count == plain(conditions(base, chosen))
    for group in panel.groups:
        others = conditions(base, chosen, leave_out=group["code"])
        for item in group["values"]:
            assert item["count"] == plain(others + [{FIELDS[group["code"]]: item["value"]}]), \
                (chosen, group["code"], item)
            assert item["chosen"] == (item["value"] in chosen.get(group["code"], ()))
    genres = next((g for g in panel.groups if g["code"] == "genre"), {"values": []})
    held = {g for g in GENRES + ["Soul", "Film Noir"]
            if plain(conditions(base, chosen, "genre") + [{"details.genre": g}])}
    assert {i["value"] for i in genres["values"] if i["count"]} == held
    for item in panel.bands:
        assert item["count"] == plain(conditions(base, chosen, "price") + [band(item["value"])]), item
    assert panel.in_stock["count"] == plain(
        conditions(base, chosen, "in_stock") + [{"sku": {"$nin": sold_out()}}])
    return response


@pytest.fixture
def generated():
    """A generated catalog of 150 albums in 110 categories, made more varied: a third of the
    top category's albums get two genres out of all, a few a price in each band, a few are
    sold out, and one is a TV season. Built once per test process (``built_once``)."""
    return built_once("facets-generated", _build_generated)


def _build_generated():
    populate(150, categories=110, stock=3, seed=11)
    top = Category.objects.get_by_slug("top-0")
    skus = [d["sku"] for d in get_collection("products").find({"listed_in": top.pk}, {"sku": 1}).sort("sku", 1)]
    rng = random.Random(5)
    for number, sku in enumerate(skus):
        product = Product.objects.get(sku=sku)
        if number % 3 == 0:
            product.details["genre"] = sorted(rng.sample(GENRES, 2))
        if number % 5 == 0:
            cents = rng.choice([299, 1999, 2500])
            product.pricing = Pricing.from_prices(cents, cents)
        if number % 3 == 0 or number % 5 == 0:
            product.save()
    for sku in skus[1:7:2]:
        Inventory.objects.set_stock(sku, 0)
    return {"top": top, "skus": skus}


CHOICES = [
    {},
    {"genre": ["Rock"]},
    {"genre": ["Metal", "Rock"], "price": ["10-20"]},
    {"type": ["Audio Album"], "genre": ["Jazz"], "price": ["5-10", "20-"]},
    {"in_stock": True},
    {"genre": ["Rock"], "in_stock": True, "price": ["5-10", "10-20"]},
]


def test_counts_equal_plain_counts_before_and_after_edits(generated):
    base = [{"listed_in": generated["top"].pk}]
    reader = Client()
    # An artist of the listing as a choice too.
    artist = get_collection("products").find_one({"sku": generated["skus"][4]})["details"]["artist"]
    for chosen in CHOICES:
        assert_counts_are_plain("/c/top-0/", base, chosen, reader)
    assert_counts_are_plain("/c/top-0/", base, {**CHOICES[2], "artist": [artist]}, reader)

    # Edits: a genre and a price changed, a product moved in, another sold out.
    product = Product.objects.get(sku=generated["skus"][0])
    product.details["genre"] = ["Soul", "Rock"]
    product.pricing = Pricing.from_prices(450, 450)
    product.save()
    newcomer = Product.objects.get(sku=get_collection("products").find_one(
        {"listed_in": {"$ne": generated["top"].pk}})["sku"])
    newcomer.categories = [generated["top"].pk]
    newcomer.details["genre"] = ["Film Noir"]
    newcomer.save()
    Inventory.objects.set_stock(generated["skus"][10], 0)
    caches["default"].clear()  # the in-stock count is kept IN_STOCK_SECONDS (see the stock test)
    for chosen in CHOICES:
        assert_counts_are_plain("/c/top-0/", base, chosen, reader)
    assert_counts_are_plain("/c/top-0/", base, {"genre": ["Film Noir", "Soul"], "price": ["0-5"]}, reader)


def test_search_page_counts_equal_plain_counts(generated):
    word = get_collection("products").find_one({"sku": generated["skus"][3]})["title"].split()[0].lower()
    base = [{"keywords": word}]
    for chosen in CHOICES[:3]:
        response = assert_counts_are_plain("/search/", base, chosen, extra={"q": word})
        assert response.context["facets"].hidden == [("q", word)]


@pytest.fixture
def shelf(make_tree):
    made = make_tree({"Music": {}})
    music = made["Music"].pk
    rows = [("A", "AC/DC", ["Rock"], 499), ("B", "AC/DC", ["Metal"], 899), ("C", "Miles", ["Jazz"], 1299),
            ("D", "Miles", ["Jazz", "Rock"], 2499), ("E", "Blur", ["Rock"], 999)]
    for sku, artist, genre, cents in rows:
        make_product(f"Album {sku}", sku=sku, artist=artist, genre=genre, list_cents=cents, categories=[music])
    Inventory.objects.ensure_stock([r[0] for r in rows], 4)
    return made


def skus(response):
    return sorted(p.sku for p in response.context["page"])


def test_or_within_a_facet_and_across_facets(shelf):
    client = Client()
    assert skus(client.get("/c/music/?genre=Rock")) == ["A", "D", "E"]
    assert skus(client.get("/c/music/?genre=Rock&genre=Metal")) == ["A", "B", "D", "E"]
    assert skus(client.get("/c/music/?genre=Rock&genre=Metal&artist=AC/DC")) == ["A", "B"]
    assert skus(client.get("/c/music/?genre=Rock&price=5-10")) == ["E"]
    assert skus(client.get("/c/music/?price=0-5&price=20-")) == ["A", "D"]
    response = client.get("/c/music/?genre=Jazz&artist=Miles&price=20-")
    assert skus(response) == ["D"]
    # Each facet's counts leave its own choice out: Rock and Metal stay countable.
    groups = {g["code"]: g for g in response.context["facets"].groups}
    genres = {i["value"]: i["count"] for i in groups["genre"]["values"]}
    assert genres == {"Jazz": 1, "Rock": 1}
    body = client.get("/c/music/?genre=Rock&sort=price").content.decode()
    assert 'name="genre" value="Rock" checked' in body
    assert '<input type="hidden" name="sort" value="price">' in body  # the form keeps the sort


def test_in_stock_narrows_the_page_at_once_and_its_count_follows_within_seconds(shelf):
    client = Client()
    assert client.get("/c/music/").context["facets"].in_stock["count"] == 5
    Inventory.objects.set_stock("E", 0)
    response = client.get("/c/music/?in_stock=1")
    assert skus(response) == ["A", "B", "C", "D"]  # the stock write forgot the kept sold-out SKUs
    assert response.context["facets"].in_stock["count"] == 4
    # The count beside an unticked box is kept IN_STOCK_SECONDS: at most that late.
    assert client.get("/c/music/").context["facets"].in_stock["count"] == 5
    caches["default"].clear()
    assert client.get("/c/music/").context["facets"].in_stock["count"] == 4


@pytest.mark.parametrize("query", [
    "colour=red", "genre=Nope", "price=cheap", "price=5-11", "in_stock=yes", "artist=Nobody",
    "details.genre=Rock", "type=Vinyl", "genre[$ne]=x",
])
def test_unknown_facets_and_values_are_ignored(shelf, query):
    client = Client()
    response = client.get(f"/c/music/?{query}")
    assert response.status_code == 200
    assert not response.context["facets"].chosen
    assert skus(response) == ["A", "B", "C", "D", "E"]


def _sent_text(ops):
    """Every key and string value of the commands sent, as one list of strings."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                found.append(key)
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            found.append(value)

    for command in ops.commands:
        walk(command)
    return found


def test_no_user_text_reaches_a_pattern_or_an_operator(shelf):
    hostile = [v for v in HOSTILE_VALUES if len(v) <= 200 and "\x00" not in v]
    params = {"genre": hostile, "artist": hostile, "type": hostile, "price": hostile,
              "in_stock": hostile, "$where": hostile, "details.genre": hostile}
    with count_operations() as ops:
        response = Client().get("/c/music/", params)
    assert response.status_code == 200 and not response.context["facets"].chosen
    sent = _sent_text(ops)
    assert "$regex" not in sent and "$where" not in sent
    assert not set(hostile) & set(sent), set(hostile) & set(sent)


def test_a_chosen_value_is_sent_only_as_a_member_of_an_in_list(shelf):
    with count_operations() as ops:
        Client().get("/c/music/?genre=Rock&artist=Blur")
    placed = []

    def walk(value, parent):
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, key)
        elif isinstance(value, list):
            for item in value:
                walk(item, parent)
        elif value in ("Rock", "Blur"):
            placed.append(parent)

    # The queries (the kept facet counts written hold values as data, not as a filter).
    for (_name, operation), command in zip(ops.operations, ops.commands):
        if operation in ("find", "aggregate", "count"):
            walk(command, None)
    assert placed and set(placed) == {"$in"}, placed


def test_a_warm_faceted_page_costs_the_version_and_the_stock(shelf):
    # (The tests' STOCK_SHOWN_SECONDS is 0: stock and the sold-out SKUs read every time;
    # kept: tests/catalog/test_faceted_listing.py.)
    reader = Client()
    for url, warm in [
        ("/c/music/", [("catalog_versions", "find"), ("inventory", "find")]),
        ("/c/music/?genre=Rock&genre=Metal&price=5-10", [("catalog_versions", "find"), ("inventory", "find")]),
        # "in stock" chosen: the sold-out SKUs, then the page's stock
        ("/c/music/?genre=Rock&in_stock=1", [("catalog_versions", "find"), ("inventory", "find"),
                                             ("inventory", "find")]),
    ]:
        reader.get(url)
        with count_operations() as ops:
            assert reader.get(url).status_code == 200
        assert ops.operations == warm, (url, ops.operations)


def test_a_cold_faceted_page_reads_the_facet_counts_in_one_aggregation(shelf):
    with count_operations() as ops:
        Client().get("/c/music/")
    # the facets without a choice (one read of the category's products' facet fields, by
    # issue decade: catalog/listings/facet_parts.py), the page's order, then its cards (the
    # category's count is kept: no count of its products)
    assert ops.operations.count(("products", "find")) == 2, ops.operations
    assert ops.operations.count(("products", "aggregate")) == 1, ops.operations
    with count_operations() as ops:
        Client().get("/c/music/?genre=Rock")
    # the facets without a choice (cached: the values a URL may choose) and with it (summed
    # from the kept counts given a genre: catalog/listings/facet_parts.py), then the page
    assert ops.operations.count(("products", "aggregate")) == 1, ops.operations
    with count_operations() as ops:
        Client().get("/c/music/?genre=Rock&price=5-10")
    # a choice in two facets: the counts with it counted from the products (one more)
    assert ops.operations.count(("products", "aggregate")) == 2, ops.operations


def test_facets_offered_are_those_of_the_types_listed(make_tree):
    made = make_tree({"Video": {}})
    make_product("A Film", type="Film", genre=["Drama"], actor=["Ada"], categories=[made["Video"].pk])
    panel = Client().get("/c/video/").context["facets"]
    assert [g["code"] for g in panel.groups] == ["type", "genre"]  # no artist: films have none


def test_the_facet_form_keeps_the_other_parameters_and_has_labels(shelf):
    body = Client().get("/c/music/?sort=price&min_price=1&genre=Jazz").content.decode()
    assert '<input type="hidden" name="min_price" value="1.00">' not in body  # kept as typed
    assert '<input type="hidden" name="min_price" value="1">' in body
    assert '<label for="facet-genre-1">' in body and 'id="facet-genre-1"' in body
    assert 'id="facet-in-stock"' in body and "<script" in body and "facets.js" in body
    assert "Clear filters" in body


def test_ensure_indexes_creates_the_facet_indexes(made_facet_indexes):
    from catalog.store.indexes import facet_indexes

    information = get_collection("products").index_information()
    for keys, options in facet_indexes()["products"]:
        assert options["name"] in information, options
        assert [tuple(k) for k in information[options["name"]]["key"]] == [tuple(k) for k in keys]
    assert {tuple(k for k, _d in keys) for keys, _o in facet_indexes()["products"]} == {
        ("listed_in", "type"), ("details.genre",), ("listed_in", "details.artist"),
        ("variants.options.format",)}  # a variant attribute: its variants' values
    assert "qty" in get_collection("inventory").index_information()  # the sold-out SKUs


def test_the_sort_form_keeps_the_choice(shelf):
    body = Client().get("/c/music/?genre=Rock&price=5-10&in_stock=1&genre=Nope").content.decode()
    sort_form = body[body.index('<form class="sort"'):]
    sort_form = sort_form[:sort_form.index("</form>")]
    for name, value in [("genre", "Rock"), ("price", "5-10"), ("in_stock", "1")]:
        assert f'<input type="hidden" name="{name}" value="{value}">' in sort_form
    assert "Nope" not in body


def test_the_sold_out_skus_are_read_from_the_qty_index(shelf, made_facet_indexes):
    from tests.support.examined import documents_examined

    Inventory.objects.set_stock("B", 0)
    with count_operations() as ops:
        assert Product.facets.sold_out_skus() == ["B"]
    assert documents_examined(ops, "inventory") == 1  # not the whole inventory
