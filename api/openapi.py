"""What the API's OpenAPI schema states beyond the views' signatures: the bounds the
views enforce, and the links from one operation's answer to the next operation.

The bounds are documented, not enforced by django-ninja: the views check them
themselves (``api.paths.parse_path``, ``category_products``) to answer 400 with
the step at fault, where a schema validation error would answer "Bad parameters."
``tests/api/test_api_bounds.py`` checks that each bound stated here is the one
the API answers by.
"""

from ninja import Path, Query

from catalog.listings.paginators import MAX_PAGE
from catalog.store.subdocuments import MAX_STEPS

from .paths import MAX_PATH_LENGTH

# A path: non-empty steps separated by "/", none starting with "$", at most MAX_STEPS
# of them, at most MAX_PATH_LENGTH characters (api.paths.parse_path).
PATH_PATTERN = rf"^[^/$][^/]*(/[^/$][^/]*){{0,{MAX_STEPS - 1}}}$"


def _documented(param, **bounds):
    """``param`` (a ninja ``Path``/``Query``) with ``bounds`` in its JSON schema only."""
    param.json_schema_extra.update(bounds)
    return param


#: Examples of the path parameters, from the demo catalog (Chinook): so that a client
#: generated from the schema (or schemathesis) reaches real documents, not only 404s.
EXAMPLE_SKU = "CHK-0001"
EXAMPLE_SLUG = "rock"
EXAMPLE_PATH = "pricing"


def path_param():
    """The ``path`` parameter of the by-path reads, its bounds stated, ``pricing`` its example."""
    return _documented(
        Path(..., description=f"Object keys and list indices separated by `/`, e.g. `details/tracks/3`: "
                              f"at most {MAX_STEPS} steps and {MAX_PATH_LENGTH} characters, no empty "
                              f"step, no step starting with `$` (400 otherwise)."),
        minLength=1, maxLength=MAX_PATH_LENGTH, pattern=PATH_PATTERN, example=EXAMPLE_PATH)


def sku_param():
    """The ``sku`` path parameter, a demo SKU its example."""
    return _documented(Path(..., description="A product's SKU."), example=EXAMPLE_SKU)


def slug_param():
    """The ``slug`` path parameter, a demo category its example."""
    return _documented(Path(..., description="A category's slug."), example=EXAMPLE_SLUG)


def page_param():
    """The listing's ``page`` parameter: from 1 to ``MAX_PAGE`` (400 outside; 404 past the last page)."""
    return _documented(Query(1, description=f"The page, from 1 to {MAX_PAGE} (400 outside; "
                                            f"404 past the last page)."),
                       minimum=1, maximum=MAX_PAGE)


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
