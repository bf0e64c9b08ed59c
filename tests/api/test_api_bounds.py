"""The OpenAPI schema states the bounds the API answers by (page, path), and its links
lead from one answer to the next operation (api/openapi.py)."""

import re

import pytest

from catalog.store.subdocuments import MAX_STEPS


@pytest.fixture
def schema(client):
    return client.get("/api/v1/openapi.json").json()


def parameter(schema, url, name):
    operation = schema["paths"][url]["get"]
    return next(p for p in operation["parameters"] if p["name"] == name)["schema"]


def test_the_page_bound_is_the_one_the_api_answers_by(client, schema, chinook):
    minimum = parameter(schema, "/api/v1/categories/{slug}/products", "page")["minimum"]
    assert minimum == 1
    assert client.get(f"/api/v1/categories/rock/products?page={minimum}").status_code == 200
    for page in (minimum - 1, -842):
        assert client.get(f"/api/v1/categories/rock/products?page={page}").status_code == 400
    listing = schema["components"]["schemas"]["ProductPage"]["properties"]
    assert listing["per_page"]["minimum"] == 1 and listing["page"]["minimum"] == 1


@pytest.mark.parametrize("url", ["/api/v1/products/{sku}/{path}", "/api/v1/categories/{slug}/{path}"])
def test_the_path_bounds_are_the_ones_the_api_answers_by(client, schema, chinook, url):
    bounds = parameter(schema, url, "path")
    pattern, longest = re.compile(bounds["pattern"]), bounds["maxLength"]
    base = url.replace("{sku}", "CHK-0001").replace("{slug}", "rock").replace("{path}", "")
    cases = [
        "/".join(["nothing"] * MAX_STEPS),          # the most steps: looked up (404)
        "/".join(["nothing"] * (MAX_STEPS + 1)),    # one more: refused (400)
        "$where", "nothing/$x", "a//b", "x" * longest, "x" * (longest + 1), "nothing",
    ]
    for path in cases:
        allowed = bool(pattern.fullmatch(path)) and len(path) <= longest
        status = client.get(base + path).status_code
        assert status == (404 if allowed else 400), (path[:40], status)


def test_the_links_lead_to_answers(client, schema, chinook):
    operations = {op["operationId"]: (url, op) for url, item in schema["paths"].items() for op in item.values()}
    links = {name: op["responses"]["200"].get("links", {}) for name, (_, op) in operations.items()}
    assert set(links["category"]) == {"products", "path"}
    assert set(links["product"]) == {"path"} and set(links["category_products"]) == {"category", "first_product"}

    def follow(body, link):
        url, _ = operations[link["operationId"]]
        for name, expression in link["parameters"].items():
            pointer = expression.removeprefix("$response.body#")
            value = body
            for step in pointer.strip("/").split("/"):
                value = value[int(step)] if isinstance(value, list) else value[step]
            url = url.replace("{" + name + "}", value)
        return url

    category = client.get("/api/v1/categories/rock").json()
    listing_url = follow(category, links["category"]["products"])
    assert listing_url == "/api/v1/categories/rock/products"
    listing = client.get(listing_url).json()
    assert client.get(follow(listing, links["category_products"]["category"])).status_code == 200
    product_url = follow(listing, links["category_products"]["first_product"])
    product = client.get(product_url).json()
    assert product["sku"] == listing["products"][0]["sku"]
    assert client.get(follow(product, links["product"]["path"]).replace("{path}", "pricing")).status_code == 200
    assert client.get(follow(category, links["category"]["path"]).replace("{path}", "name")).json() == "Rock"
