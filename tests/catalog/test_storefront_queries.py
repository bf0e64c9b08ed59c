"""The "Product Catalog" use case's storefront queries: genre, deals, artist, actor, price range.

Each as a ``Product.listings`` method (right products, right order) and as a
page with a constant number of round trips.
"""

import pytest

from catalog.models import CatalogVersion, Product
from core.mongo.counter import count_operations

from tests.support.products import make_product


def skus(query):
    return [p.sku for p in query[0:100]]


# -- genre --------------------------------------------------------------------


def test_by_genre_lists_the_genre_of_the_type_newest_first():
    old = make_product("Old", genre=["Jazz"], year=1959, sku="J-OLD")
    new = make_product("New", genre=["Jazz", "Fusion"], year=1970, sku="J-NEW")
    make_product("Rock", genre=["Rock"], year=2000)
    make_product("Jazz film", type="Film", genre=["Jazz"], year=2001)
    query = Product.listings.by_genre("Jazz")
    assert query.count() == 2
    assert skus(query) == [new.sku, old.sku]


def test_by_genre_of_another_type():
    film = make_product("Jazz film", type="Film", genre=["Jazz"], year=2001)
    make_product("Jazz album", genre=["Jazz"])
    assert skus(Product.listings.by_genre("Jazz", "Film")) == [film.sku]


def test_same_issue_date_comes_in_a_stable_order():
    made = sorted(make_product(f"A{i}", genre=["Pop"], year=2000).pk for i in range(5))
    assert [p.pk for p in Product.listings.by_genre("Pop")[0:5]] == made


def test_genre_page(client):
    make_product("Kind of Blue", genre=["Jazz"], year=1959)
    make_product("Bitches Brew", genre=["Jazz"], year=1970)
    with count_operations() as ops:
        response = client.get("/genre/Jazz/")
    assert response.status_code == 200
    body = response.content.decode()
    assert body.index("Bitches Brew") < body.index("Kind of Blue")
    # catalog version, count, page, the page's stock, header categories (a cold cache), the
    # versions of the products shown (their cards' HTML)
    assert ops.total == 6, ops.operations


def test_genre_page_with_a_slash_in_the_genre(client):
    make_product("Dance", genre=["Electronica/Dance"])
    assert client.get("/genre/Electronica/Dance/").status_code == 200


def test_genre_page_unknown_genre_and_type(client):
    make_product("Kind of Blue", genre=["Jazz"])
    assert client.get("/genre/Polka/").status_code == 404
    assert client.get("/genre/Jazz/?type=Vinyl").status_code == 400


def test_genre_page_costs_the_same_with_many_products(client):
    for i in range(30):
        make_product(f"Album {i}", genre=["Jazz"], year=1950 + i)
    with count_operations() as ops:
        response = client.get("/genre/Jazz/?page=2")
    assert response.status_code == 200
    assert response.content.decode().count('class="card"') == 6
    assert ops.total == 6, ops.operations  # as the first page


# -- deals --------------------------------------------------------------------


def test_deals_above_the_threshold_biggest_saving_first():
    make_product("No saving", list_cents=1000)
    small = make_product("Small", list_cents=1000, retail_cents=900)  # 10%
    big = make_product("Big", list_cents=1000, retail_cents=500)  # 50%
    mid = make_product("Mid", list_cents=1000, retail_cents=700)  # 30%
    assert skus(Product.listings.deals(0)) == [big.sku, mid.sku, small.sku]
    assert skus(Product.listings.deals(25)) == [big.sku, mid.sku]
    assert skus(Product.listings.deals(30)) == [big.sku]  # more than, not equal


def test_deals_page(client):
    make_product("Half price", list_cents=1000, retail_cents=500)
    make_product("Small saving", list_cents=1000, retail_cents=950)
    with count_operations() as ops:
        response = client.get("/deals/?min=25")
    assert response.status_code == 200
    assert "Half price" in response.content.decode()
    assert "Small saving" not in response.content.decode()
    # catalog versions with the savings', their counts kept (none yet: the versions of the
    # savings' decades, one read of their issue dates, the counts kept), the page's order
    # (over the savings it spans), the versions of the products shown and their cards by SKU
    # (kept from this first visit), its stock, header categories
    assert ops.total == 10, ops.operations
    CatalogVersion.objects.bump()  # nothing cached: the counts kept in the database stay
    with count_operations() as ops:
        assert "Half price" in client.get("/deals/?min=25").content.decode()
    # versions (those of the products shown with them: the page's second request), the counts
    # kept (one read of savings_counts), the order, the cards by SKU, stock, header categories
    assert ops.total == 6, ops.operations
    assert ("products", "aggregate") in ops.operations and ("savings_counts", "find") in ops.operations


@pytest.mark.parametrize("value", ["-1", "100", "lots", "{\"$ne\": 1}"])
def test_deals_page_rejects_a_bad_threshold(client, value):
    response = client.get("/deals/", {"min": value})
    assert response.status_code == 400
    body = response.content.decode()
    assert "errorlist" in body and 'class="count"' not in body


def test_deals_page_default_threshold_shows_chinook_deals(client, chinook):
    response = client.get("/deals/")
    assert response.status_code == 200
    assert response.content.decode().count('class="card"') > 0


# -- artist and actor -----------------------------------------------------------


def test_by_artist_newest_first_albums_and_seasons_only():
    first = make_product("First", artist="Miles Davis", year=1957)
    second = make_product("Second", artist="Miles Davis", year=1969)
    season = make_product("Season", type="TV Season", artist="Miles Davis", year=1980)
    make_product("Other", artist="John Coltrane", year=1965)
    assert skus(Product.listings.by_artist("Miles Davis")) == [season.sku, second.sku, first.sku]


def test_by_actor_newest_first():
    matrix = make_product("The Matrix", type="Film", actor=["Keanu Reeves"], year=1999)
    wick = make_product("John Wick", type="Film", actor=["Keanu Reeves", "Ian McShane"],
                        year=2014)
    make_product("Other", type="Film", actor=["Someone"], year=2020)
    assert skus(Product.listings.by_actor("Keanu Reeves")) == [wick.sku, matrix.sku]
    assert skus(Product.listings.by_actor("Ian McShane")) == [wick.sku]


def test_artist_and_actor_pages(client):
    make_product("Back in Black", artist="AC/DC", year=1980)
    make_product("The Matrix", type="Film", actor=["Keanu Reeves"], year=1999)
    with count_operations() as ops:
        response = client.get("/artist/AC/DC/")
    assert response.status_code == 200 and "Back in Black" in response.content.decode()
    assert ops.total == 6, ops.operations  # version, count, page, stock, header categories, shown
    with count_operations() as ops:
        response = client.get("/actor/Keanu Reeves/")
    assert response.status_code == 200 and "The Matrix" in response.content.decode()
    assert ops.total == 5, ops.operations  # the header categories come from the cache now
    assert client.get("/artist/Nobody/").status_code == 404
    assert client.get("/actor/Nobody/").status_code == 404


def test_product_page_links_to_artist_and_genre(client):
    product = make_product("Back in Black", artist="AC/DC", genre=["Rock"])
    body = client.get(product.get_absolute_url()).content.decode()
    assert 'href="/artist/AC/DC/"' in body
    assert 'href="/genre/Rock/"' in body
    film = make_product("The Matrix", type="Film", actor=["Keanu Reeves"], genre=["Sci-Fi"])
    body = client.get(film.get_absolute_url()).content.decode()
    assert 'href="/actor/Keanu%20Reeves/"' in body
    assert 'href="/genre/Sci-Fi/?type=Film"' in body


# -- price range on the category page --------------------------------------------


@pytest.fixture
def priced(make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    products = {
        cents: make_product(f"At {cents}", list_cents=cents, categories=[tree["Rock"].pk])
        for cents in (499, 999, 1499, 1999)
    }
    return tree, products


def test_listing_in_a_price_range(priced):
    tree, products = priced
    ids = [tree["Music"].pk, tree["Rock"].pk]
    listing = Product.listings.listing(ids, sort="price", min_cents=999, max_cents=1499)
    assert [p.sku for p in listing[0:24]] == [products[999].sku, products[1499].sku]
    assert listing.count() == 2
    assert Product.listings.listing(ids, sort="price", max_cents=999).count() == 2
    assert Product.listings.listing(ids, sort="price", min_cents=1000).count() == 2
    assert Product.listings.listing(ids, sort="price").count() == 4


def test_category_page_price_filter(client, priced):
    with count_operations() as ops:
        response = client.get("/c/music/", {"min_price": "9.99", "max_price": "15", "sort": "price"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "At 999" in body and "At 1499" in body
    assert "At 499" not in body and "At 1999" not in body
    assert ops.total == 10, ops.operations  # same as without the filter (with the facets' 3)
    assert 'value="9.99"' in body  # the form keeps what was asked


@pytest.mark.parametrize("query", [
    {"min_price": "cheap"}, {"min_price": "-1"}, {"min_price": "20", "max_price": "10"},
    {"max_price": "1e400"},
])
def test_category_page_rejects_a_bad_price_range(client, priced, query):
    response = client.get("/c/music/", query)
    assert response.status_code == 400
    body = response.content.decode()
    assert "errorlist" in body
    assert body.count('class="card"') == 4  # shown unfiltered


def test_category_pagination_keeps_the_price_range(client, make_tree, settings):
    settings.CATALOG_PAGE_SIZE = 2
    tree = make_tree({"Music": {}})
    for cents in (100, 200, 300, 400, 500):
        make_product(f"At {cents}", list_cents=cents, categories=[tree["Music"].pk])
    body = client.get("/c/music/", {"min_price": "2", "sort": "price"}).content.decode()
    assert "min_price=2" in body and "page=2" in body


# -- indexes ------------------------------------------------------------------------


@pytest.mark.parametrize("make_query", [
    lambda: Product.listings.by_genre("Jazz"),
    lambda: Product.listings.deals(25),
    lambda: Product.listings.by_artist("Miles Davis"),
    lambda: Product.listings.by_actor("Keanu Reeves"),
])
def test_queries_use_an_index(make_query, made_facet_indexes):
    make_product("Kind of Blue", artist="Miles Davis", genre=["Jazz"], list_cents=1000,
                 retail_cents=500)
    plan = str(make_query().explain()["queryPlanner"]["winningPlan"])
    assert "IXSCAN" in plan and "COLLSCAN" not in plan


# -- the home page's newest products -------------------------------------------------


@pytest.fixture
def march_2021(monkeypatch):
    import datetime

    monkeypatch.setattr("core.clock.now", lambda: datetime.datetime(2021, 3, 1, tzinfo=datetime.UTC))


def _plain_sort(limit):
    """The newest products as one sort of the whole collection would give them."""
    from core.mongo import get_collection

    cursor = get_collection("products").find({}, {"sku": 1}).sort(
        [("details.issue_date", -1), ("_id", 1)]).limit(limit)
    return [d["sku"] for d in cursor]


def test_newest_equals_the_sort_of_every_product_and_examines_the_window(march_2021):
    from tests.support.examined import documents_examined

    for i in range(30):
        make_product(f"Old {i}", year=1970 + i)
    recent = [make_product(f"Recent {i}", year=2021) for i in range(8)]
    make_product("Future", year=2030, sku="FUTURE")
    make_product("Undated", year=None)
    with count_operations() as ops:
        newest = [p.sku for p in Product.listings.newest(limit=8)]
    assert newest == _plain_sort(8) == ["FUTURE", *sorted(p.sku for p in recent)[:7]]
    # the window of the last 90 days holds 9 products: those are read, not the 40; then the
    # cards of the 8 shown, by SKU
    assert documents_examined(ops, "products") == 9 + 8


def test_newest_of_a_small_catalog_lists_the_undated_last(march_2021):
    make_product("Undated", year=None, sku="UNDATED")
    make_product("Old", year=1999, sku="OLD")
    make_product("Older", year=1950, sku="OLDER")
    assert [p.sku for p in Product.listings.newest(limit=8)] == _plain_sort(8) == [
        "OLD", "OLDER", "UNDATED"]
