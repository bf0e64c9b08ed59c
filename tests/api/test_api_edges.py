"""The API's schema states what it answers by, and every URL under /api/ answers JSON:
the page bound of the category listing, a path ending in a newline, examples that reach real
documents (api/openapi.py, shop/urls.py)."""

import pytest
from django.test import Client

from api.openapi import EXAMPLE_PATH, EXAMPLE_SKU, EXAMPLE_SLUG
from catalog.listings.paginators import MAX_PAGE


@pytest.fixture
def schema():
    return Client().get("/api/v1/openapi.json").json()


def parameters(schema, path):
    return {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}


def test_the_page_bound_is_in_the_schema(schema):
    page = parameters(schema, "/api/v1/categories/{slug}/products")["page"]
    assert (page["minimum"], page["maximum"]) == (1, MAX_PAGE)


def test_a_page_above_the_bound_is_refused_as_the_schema_says(chinook):
    answer = Client().get("/api/v1/categories/rock/products", {"page": MAX_PAGE + 1})
    assert answer.status_code == 400 and answer["Content-Type"] == "application/json"


@pytest.mark.parametrize("url", ["/api/v1/products/CHK-0001/pricing%0A", "/api/v1/products/CHK-0001%0A",
                                 "/api/v1/categories/rock/products%0A", "/api/v1/%0A", "/api/", "/api/v2/x"])
def test_any_url_under_api_answers_json(url):
    answer = Client().get(url)
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json" and "detail" in answer.json()


def test_the_examples_reach_real_documents(schema, chinook):
    every = {}
    for path in schema["paths"]:
        for name, parameter in parameters(schema, path).items() if "{" in path else ():
            every.setdefault(name, set()).add(parameter.get("example"))
    assert every == {"sku": {EXAMPLE_SKU}, "slug": {EXAMPLE_SLUG}, "path": {EXAMPLE_PATH}} | (
        {"page": every["page"], "sort": every["sort"]} if "page" in every else {})
    client = Client()
    for url in (f"/api/v1/products/{EXAMPLE_SKU}", f"/api/v1/products/{EXAMPLE_SKU}/{EXAMPLE_PATH}",
                f"/api/v1/categories/{EXAMPLE_SLUG}", f"/api/v1/categories/{EXAMPLE_SLUG}/products",
                f"/api/v1/categories/{EXAMPLE_SLUG}/name"):
        assert client.get(url).status_code == 200, url
