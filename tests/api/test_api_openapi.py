"""The API's OpenAPI schema (validated with openapi-spec-validator) and its interactive docs."""

from openapi_spec_validator import validate


def test_the_openapi_schema_is_valid(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    validate(schema)
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/api/v1/products/{sku}", "/api/v1/products/{sku}/{path}",
        "/api/v1/categories/{slug}", "/api/v1/categories/{slug}/products",
        "/api/v1/categories/{slug}/{path}",
    }
    assert all(set(operations) == {"get"} for operations in schema["paths"].values())


def test_the_schema_documents_the_shapes_and_errors(client):
    schema = client.get("/api/v1/openapi.json").json()
    product = schema["paths"]["/api/v1/products/{sku}"]["get"]["responses"]
    assert set(product) == {"200", "400", "404"}
    components = schema["components"]["schemas"]
    assert {"_id", "sku", "pricing", "details", "currency"} <= set(
        components["ProductDocument"]["properties"])
    assert {"detail", "step", "position"} == set(components["Error"]["properties"])
    listing = schema["paths"]["/api/v1/categories/{slug}/products"]["get"]["parameters"]
    sort = next(p for p in listing if p["name"] == "sort")
    assert sort["schema"]["enum"] == ["newest", "price", "-price", "title"]


def test_the_docs_page_loads_swagger_ui_from_the_shop(client):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'src="/static/ninja/swagger-ui-bundle.js"' in html
    assert "cdn" not in html.lower()
    assert "/api/v1/openapi.json" in html


def test_the_schema_and_docs_have_an_etag_and_cache_control(client):
    for url in ("/api/v1/openapi.json", "/api/v1/docs"):
        response = client.get(url)
        assert response["Cache-Control"] == "public, max-age=60"
        assert client.get(url, headers={"If-None-Match": response["ETag"]}).status_code == 304


def test_an_unknown_api_url_is_a_json_404(client):
    for url in ("/api/v1/nothing", "/api/v1/products/CHK-0001/", "/api/v1/products"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"] == "application/json"
        assert "docs" in response.json()["detail"]
