"""The read-only JSON catalog API, ``/api/v1/`` (django-ninja).

Thin views: parse and check the request, call a catalog manager, answer
(``api.responses.answer``: JSON, ETag, Cache-Control, 304). Reads by path
are the FoundationDB "Hierarchical Documents" recipe's: ``CategoryManager.read_by_path`` and
``Product.objects.read_by_path`` evaluate the path on the server in one
round trip. The OpenAPI schema is at ``/api/v1/openapi.json``, the
interactive docs at ``/api/v1/docs`` (Swagger UI from the shop's own static
files).
"""

from typing import Any, Literal

from django.conf import settings
from django.core.paginator import EmptyPage, Paginator
from ninja import NinjaAPI, Swagger
from ninja.errors import ValidationError

from catalog.models import Category, Product
from catalog.exceptions import PathError, PathNotFound
from catalog.listings.paginators import MAX_PAGE

from . import schemas
from .encoding import product_card, to_json
from .paths import parse_path
from .openapi import LINKS, page_param, path_param, sku_param, slug_param
from .responses import answer, error, with_cache_headers

DESCRIPTION = """
Read-only JSON view of the Chinook Records catalog.

**Paths** (FoundationDB "Hierarchical Documents" recipe): `GET /products/{sku}/{path}` answers the part of the product
document at `path`: object keys and list indices separated by `/`, e.g.
`details/tracks/3` (the 4th track), `details/tracks/3/title`, `pricing`. Only
that part is read from MongoDB, in one round trip. `{}` and `[]` answer as such.

**Shape**: ObjectIds are strings, times ISO 8601 UTC (`Z`), money integer cents
in the currency named by the product's `currency`.

**Errors** answer `{"detail", "step", "position"}`: 404 for an unknown SKU or slug
or the first path step that does not resolve; 400 for a malformed path (an empty
step, a step starting with `$`, more than 32 steps, a non-index step on a list,
a key on a scalar) or a bad query parameter.

**Caching**: every answer has an `ETag` and `Cache-Control`; send the ETag back in
`If-None-Match` to get 304 Not Modified while the answer is unchanged.
"""

api = NinjaAPI(
    title="Chinook Records catalog API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="api-v1",
    # Swagger UI from django-ninja's bundled files (served by the shop, no CDN), without
    # the online validator badge: the shop's CSP allows scripts and requests to itself only.
    docs=Swagger(settings={"validatorUrl": None}),
    docs_decorator=with_cache_headers,  # ETag and Cache-Control on the schema and docs too
)

ERRORS = {400: schemas.Error, 404: schemas.Error}


@api.exception_handler(ValidationError)
def bad_parameters(request, exc):
    """A query or path parameter of the wrong type: 400 (never ninja's 422)."""
    return error(request, 400, "Bad parameters.", errors=to_json(exc.errors))


def path_error(request, exc):
    """A ``PathError`` as 400 (malformed) or 404 (not found), naming the step at fault."""
    status = 404 if isinstance(exc, PathNotFound) else 400
    fields = {}
    if exc.step is not None:
        fields = {"step": exc.steps[exc.step], "position": exc.step + 1}
    return error(request, status, str(exc), **fields)


def _read(request, manager, key, path, unknown):
    """Answer ``manager.read_by_path(key, steps of path)``; 404 ``unknown`` for no document."""
    try:
        value = manager.read_by_path(key, parse_path(path))
    except manager.model.DoesNotExist:
        return error(request, 404, unknown)
    except PathError as exc:
        return path_error(request, exc)
    return answer(request, to_json(value))


@api.get("/products/{sku}", response={200: schemas.ProductDocument, **ERRORS},
         by_alias=True, url_name="product", summary="A product document",
         operation_id="product", openapi_extra=LINKS["product"])
def product_document(request, sku: str = sku_param()):
    """The whole product document (FoundationDB "Hierarchical Documents" recipe: the root prefix)."""
    return _read(request, Product.objects, sku, "", f"No product with SKU {sku!r}.")


@api.get("/products/{sku}/{path:path}", response={200: Any, **ERRORS},
         url_name="product-path", summary="A part of a product document, by path",
         operation_id="product_path")
def product_subdocument(request, sku: str = sku_param(), path: str = path_param()):
    """The value at ``path`` in the product document: an object, a list or a scalar."""
    return _read(request, Product.objects, sku, path, f"No product with SKU {sku!r}.")


@api.get("/categories/{slug}", response={200: schemas.CategoryDocument, **ERRORS},
         by_alias=True, url_name="category",
         summary="A category, its ancestors and its children",
         operation_id="category", openapi_extra=LINKS["category"])
def category_document(request, slug: str = slug_param()):
    """The category document (ancestors root first) and its direct subcategories (2 reads)."""
    try:
        document = Category.objects.read_by_path(slug)
    except Category.DoesNotExist:
        return error(request, 404, f"No category with slug {slug!r}.")
    document["children"] = Category.objects.child_crumbs(document["_id"])
    return answer(request, to_json(document))


@api.get("/categories/{slug}/products", response={200: schemas.ProductPage, **ERRORS},
         by_alias=True, url_name="category-products",
         summary="The products of a category and its subtree",
         operation_id="category_products", openapi_extra=LINKS["category_products"])
def category_products(request, slug: str = slug_param(), page: int = page_param(),
                      sort: Literal["newest", "price", "-price", "title"] = "newest"):
    """A page of the products listed in the category or any category below it, in the
    category page's order (``sort``; ``page`` from 1, ``settings.CATALOG_PAGE_SIZE`` a page).
    Reads the category, the count and the page through the catalog cache (the
    category page's own entries), and the page's stock. 400 below 1 or above
    ``catalog.listings.paginators.MAX_PAGE`` (before any read: a page is a 64-bit ``$skip`` in
    MongoDB); 404 past the last page."""
    if page < 1:
        return error(request, 400, "page must be 1 or more.")
    if page > MAX_PAGE:
        return error(request, 400, f"page must be at most {MAX_PAGE}.")
    try:
        node = Category.objects.get_by_slug(slug)
    except Category.DoesNotExist:
        return error(request, 404, f"No category with slug {slug!r}.")
    per_page = settings.CATALOG_PAGE_SIZE
    listing = Product.listings.listing([node.pk], sort=sort, page=page, per_page=per_page)
    paginator = Paginator(listing, per_page)
    try:
        products = paginator.page(page)
    except EmptyPage:
        return error(request, 404, f"No page {page}: there are {paginator.num_pages}.")
    return answer(request, {
        "category": {"_id": str(node.pk), "slug": node.slug, "name": node.name},
        "sort": sort, "page": page, "pages": paginator.num_pages, "per_page": per_page,
        "count": paginator.count,
        "products": [product_card(p) for p in products],
    })


@api.get("/categories/{slug}/{path:path}", response={200: Any, **ERRORS},
         url_name="category-path", summary="A part of a category document, by path",
         operation_id="category_path")
def category_subdocument(request, slug: str = slug_param(), path: str = path_param()):
    """The value at ``path`` in the stored category document (``children`` is not stored:
    it is only in the whole category's answer)."""
    return _read(request, Category.objects, slug, path, f"No category with slug {slug!r}.")


@api.get("/{path:rest}", include_in_schema=False)
def unknown(request, rest: str):
    """Any other URL under ``/api/v1/``: a JSON 404 (not the shop's HTML page)."""
    return error(request, 404, "No such API endpoint: see /api/v1/docs.")
