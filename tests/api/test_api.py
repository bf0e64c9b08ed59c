"""The catalog API's endpoints on the Chinook catalog: shape, categories, listings, caching."""

import datetime
import re

import pytest
from bson import ObjectId

from catalog.models import Category, Pricing, Product
from core.mongo.counter import count_operations
from tests.support.products import make_product

ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z")


# -- products -----------------------------------------------------------------


def test_a_product_document_in_the_documented_shape(client, chinook):
    with count_operations() as ops:
        response = client.get("/api/v1/products/CHK-0001")
    assert ops.total == 1
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    stored = Product.objects.collection.find_one({"sku": "CHK-0001"})
    assert body["_id"] == str(stored["_id"])                       # ObjectIds as strings
    assert body["categories"] == [str(c) for c in stored["categories"]]
    assert ISO_UTC.fullmatch(body["details"]["issue_date"])        # times ISO 8601 UTC
    assert body["details"]["issue_date"] == stored["details"]["issue_date"].strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    assert body["pricing"] == {"list": 990, "retail": 799, "savings": 191, "pct_savings": 19}
    assert body["currency"] == "USD"                               # cents, currency named
    assert "title_lower" not in body and "variant_in" not in body  # search and index copies
    assert [t["number"] for t in body["details"]["tracks"]] == list(range(1, 11))


def test_the_issue_examples(client, chinook):
    tracks = client.get("/api/v1/products/CHK-0001/details/tracks").json()
    assert client.get("/api/v1/products/CHK-0001/details/tracks/3").json() == tracks[3]
    assert client.get("/api/v1/products/CHK-0001/details/tracks/3/title").json() == \
        "Inject The Venom"
    assert client.get("/api/v1/products/CHK-0001/pricing").json()["retail"] == 799
    assert client.get("/api/v1/products/CHK-0001/currency").json() == "USD"


def test_a_time_with_microseconds_and_a_zone(client):
    from api.encoding import utc_iso

    moment = datetime.datetime(2021, 3, 4, 5, 6, 7, 891000, tzinfo=datetime.UTC)
    assert utc_iso(moment) == "2021-03-04T05:06:07.891000Z"
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    assert utc_iso(moment.astimezone(plus_two)) == "2021-03-04T05:06:07.891000Z"


# -- categories ---------------------------------------------------------------


def test_a_category_with_its_ancestors_root_first_and_its_children(client, chinook):
    with count_operations() as ops:
        response = client.get("/api/v1/categories/metal")
    assert ops.total == 2
    body = response.json()
    assert [a["slug"] for a in body["ancestors"]] == ["music", "rock"]
    metal = Category.objects.get_by_slug("metal")
    assert body["_id"] == str(metal.pk)
    assert body["parent_id"] == str(metal.parent_id)
    children = [c.slug for c in Category.objects.children(metal)]
    assert [c["slug"] for c in body["children"]] == children and children
    assert all(ObjectId(c["_id"]) for c in body["children"])


def test_a_top_category_has_no_ancestors_and_a_leaf_no_children(client, chinook):
    assert client.get("/api/v1/categories/music").json()["ancestors"] == []
    assert client.get("/api/v1/categories/music").json()["parent_id"] is None
    assert client.get("/api/v1/categories/heavy-metal").json()["children"] == []


def test_category_paths(client, chinook):
    assert client.get("/api/v1/categories/heavy-metal/ancestors/0/name").json() == "Music"
    assert client.get("/api/v1/categories/heavy-metal/ancestors/2/slug").json() == "metal"
    response = client.get("/api/v1/categories/heavy-metal/ancestors/3")
    assert response.status_code == 404 and response.json()["position"] == 2
    assert client.get("/api/v1/categories/music/ancestors").content == b"[]"
    assert client.get("/api/v1/categories/heavy-metal/name/x").status_code == 400
    assert client.get("/api/v1/categories/heavy-metal/%24where").status_code == 400


def test_unknown_slug_is_404(client, chinook):
    for url in ("/api/v1/categories/nope", "/api/v1/categories/nope/name",
                "/api/v1/categories/nope/products"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "No category" in response.json()["detail"]


def test_category_products_in_the_category_pages_order(client, chinook):
    for sort in ("newest", "price", "-price", "title"):
        client.get(f"/c/rock/?sort={sort}&page=2")  # a page by price keeps its order from its second
        page = client.get(f"/c/rock/?sort={sort}&page=2").context["page"]
        expected = [p.sku for p in page.object_list]
        with count_operations() as ops:
            response = client.get(f"/api/v1/categories/rock/products?sort={sort}&page=2")
        # the catalog versions and the page's stock: the category, the count and the page
        # come from the catalog cache the category page filled (the same listing query); the
        # versions of the products shown (which key the page's cards, named by its kept order)
        # and of the order's price bands, read once more each by this path's first request
        versions, stock = ("catalog_versions", "find"), ("inventory", "find")
        assert set(ops.operations) == {versions, stock} and ops.operations.count(versions) <= 3, ops.operations
        with count_operations() as ops:
            client.get(f"/api/v1/categories/rock/products?sort={sort}&page=2")
        assert set(ops.operations) <= {versions, stock} and ops.operations.count(versions) == 1  # remembered
        body = response.json()
        assert [p["sku"] for p in body["products"]] == expected, sort
        assert (body["count"], body["page"], body["pages"], body["sort"]) == \
            (page.paginator.count, 2, page.paginator.num_pages, sort)
    card = body["products"][0]
    assert card["url"] == f"/api/v1/products/{card['sku']}"
    assert card["currency"] == "USD" and isinstance(card["pricing"]["retail"], int)


def test_category_products_include_the_whole_subtree(client, chinook):
    body = client.get("/api/v1/categories/music/products").json()
    assert body["count"] == client.get("/c/music/").context["page"].paginator.count
    assert body["count"] > client.get("/api/v1/categories/rock/products").json()["count"]


def test_category_products_of_an_empty_category(client, make_tree):
    make_tree({"Empty": {}})
    body = client.get("/api/v1/categories/empty/products").json()
    assert (body["count"], body["products"], body["pages"]) == (0, [], 1)


@pytest.mark.parametrize("query", ["page=0", "page=-1", "page=x", "sort=cheapest", "sort="])
def test_category_products_bad_parameters_are_400(client, chinook, query):
    response = client.get(f"/api/v1/categories/rock/products?{query}")
    assert response.status_code == 400
    assert response.json()["detail"]


def test_category_products_past_the_last_page_is_404(client, chinook):
    response = client.get("/api/v1/categories/rock/products?page=99")
    assert response.status_code == 404
    assert "page 99" in response.json()["detail"]


# -- caching ------------------------------------------------------------------


def test_etag_cache_control_and_304(client, chinook):
    for url in ("/api/v1/products/CHK-0001", "/api/v1/products/CHK-0001/pricing",
                "/api/v1/categories/rock", "/api/v1/categories/rock/name",
                "/api/v1/categories/rock/products?page=2"):
        first = client.get(url)
        etag = first["ETag"]
        assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
        assert first["Cache-Control"] == "public, max-age=60"
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304, url
        assert again.content == b""
        assert again["ETag"] == etag
        assert client.get(url, headers={"If-None-Match": f"W/{etag}"}).status_code == 304
        assert client.get(url, headers={"If-None-Match": f'"other", {etag}'}).status_code == 304
        assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200


def test_the_etag_changes_with_the_document(client):
    product = make_product("Changing", sku="CHG-1", list_cents=1000)
    url = "/api/v1/products/CHG-1/pricing"
    etag = client.get(url)["ETag"]
    product.pricing = Pricing.from_prices(1000, 800)
    product.save()
    response = client.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert response.json()["retail"] == 800
    assert response["ETag"] != etag
    # Another part of the document did not change: its ETag neither.
    assert client.get("/api/v1/products/CHG-1/title")["ETag"] == \
        client.get("/api/v1/products/CHG-1/title")["ETag"]


def test_errors_have_an_etag_and_are_not_cached(client, chinook):
    for url, status in (("/api/v1/products/NOPE", 404), ("/api/v1/products/CHK-0001/nope", 404),
                        ("/api/v1/products/CHK-0001/%24x", 400),
                        ("/api/v1/categories/rock/products?page=x", 400)):
        response = client.get(url)
        assert response.status_code == status
        assert response["ETag"]
        assert response["Cache-Control"] == "no-cache"
        assert response["Content-Type"] == "application/json"
        # A matching If-None-Match never turns an error into a 304.
        assert client.get(url, headers={"If-None-Match": response["ETag"]}).status_code == status


def test_the_api_is_read_only(client, chinook):
    for method in (client.post, client.put, client.delete):
        assert method("/api/v1/products/CHK-0001").status_code == 405
