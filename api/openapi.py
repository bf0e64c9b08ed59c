"""What the API's OpenAPI schema states beyond the views' signatures: the bounds the
views enforce, and the links from one operation's answer to the next operation.

The bounds are documented, not enforced by django-ninja: the views check them
themselves (``api.paths.parse_path``, ``category_products``) to answer 400 with
the step at fault, where a schema validation error would answer "Bad parameters."
``tests/api/test_api_bounds.py`` checks that each bound stated here is the one
the API answers by.
"""

from ninja import Path, Query

from catalog.subdocuments import MAX_STEPS

from .paths import MAX_PATH_LENGTH

# A path: non-empty steps separated by "/", none starting with "$", at most MAX_STEPS
# of them, at most MAX_PATH_LENGTH characters (api.paths.parse_path).
PATH_PATTERN = rf"^[^/$][^/]*(/[^/$][^/]*){{0,{MAX_STEPS - 1}}}$"


def _documented(param, **bounds):
    """``param`` (a ninja ``Path``/``Query``) with ``bounds`` in its JSON schema only."""
    param.json_schema_extra.update(bounds)
    return param


def path_param():
    """The ``path`` parameter of the by-path reads, its bounds stated."""
    return _documented(
        Path(..., description=f"Object keys and list indices separated by `/`, e.g. `details/tracks/3`: "
                              f"at most {MAX_STEPS} steps and {MAX_PATH_LENGTH} characters, no empty "
                              f"step, no step starting with `$` (400 otherwise)."),
        minLength=1, maxLength=MAX_PATH_LENGTH, pattern=PATH_PATTERN)


def page_param():
    """The listing's ``page`` parameter: from 1 (400 below; 404 past the last page)."""
    return _documented(Query(1, description="The page, from 1 (400 below 1; 404 past the last page)."),
                       minimum=1)


def _links(**links):
    """``openapi_extra`` adding ``links`` to an operation's 200 response."""
    return {"responses": {200: {"links": links}}}


LINKS = {
    "product": _links(
        path={"operationId": "product_path", "parameters": {"sku": "$response.body#/sku"},
              "description": "A part of this product, by path (e.g. `pricing`, `details/tracks/0`)."},
    ),
    "category": _links(
        products={"operationId": "category_products", "parameters": {"slug": "$response.body#/slug"},
                  "description": "The products of this category and its subtree."},
        path={"operationId": "category_path", "parameters": {"slug": "$response.body#/slug"},
              "description": "A part of this category's document, by path (e.g. `ancestors/0/name`)."},
    ),
    "category_products": _links(
        category={"operationId": "category", "parameters": {"slug": "$response.body#/category/slug"},
                  "description": "The category listed."},
        first_product={"operationId": "product", "parameters": {"sku": "$response.body#/products/0/sku"},
                       "description": "The first product of the page."},
    ),
}
