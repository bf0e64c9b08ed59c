"""The shapes of the API's answers, for its OpenAPI schema and interactive docs.

The views build their JSON themselves (``api.encoding``) and return it as is;
these pydantic models describe it. Money is integer cents in the currency
named by ``currency``; ``_id`` and other ObjectIds are strings; times are
ISO 8601 UTC strings.
"""

from typing import Optional

from ninja import Field, Schema
from pydantic import ConfigDict


class Error(Schema):
    """An error: ``detail`` says what is wrong; for a path, ``step`` and ``position``
    (1-based) name the first step at fault."""

    detail: str
    step: Optional[str] = None
    position: Optional[int] = None


class Pricing(Schema):
    """A product's prices ("Product Catalog" use case), integer cents."""

    list: int = Field(description="List price, integer cents.")
    retail: int = Field(description="Retail price, integer cents.")
    savings: int = Field(description="list - retail, integer cents.")
    pct_savings: int = Field(description="Savings in whole percent of the list price.")


class Track(Schema):
    """A track of an album or an episode of a season, in order."""

    number: int
    title: str
    composer: str = ""
    duration: int = Field(description="Milliseconds.")
    price: int = Field(description="Integer cents.")


class Details(Schema):
    """The values of the attributes of the product's type (``product_types``), by attribute
    code: the fields below are those of the demo catalog's types; other types' codes come as
    they are stored."""

    model_config = ConfigDict(extra="allow")
    artist: Optional[str] = None
    genre: list[str] = []
    issue_date: Optional[str] = Field(None, description="ISO 8601, UTC.")
    tracks: list[Track] = Field([], description="Tracks or episodes, in order.")
    director: list[str] = []
    writer: list[str] = []
    actor: list[str] = []


class Variant(Schema):
    """A SKU a product with variants sells: its options (the type's variant attributes, e.g.
    ``{"format": "Vinyl"}``) and its prices; its stock is its own."""

    sku: str
    options: dict = Field(description="{variant attribute code: value}.")
    pricing: Pricing


class ProductDocument(Schema):
    """A product document as stored ("Product Catalog" use case), with ``currency`` added."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(alias="_id", description="ObjectId.")
    sku: str
    type: str
    title: str
    description: str = ""
    categories: list[str] = Field(description="ObjectIds of the categories it is listed in.")
    shipping: Optional[dict] = None
    pricing: Pricing
    details: Optional[Details] = None
    variants: list[Variant] = Field([], description="The SKUs it sells when it has variants "
                                    "(then its own SKU names it and its pricing is its cheapest variant's).")
    currency: str = Field(description="ISO 4217 code of every price in the document.")


class Crumb(Schema):
    """A category named by id, slug and name (an ancestor, a child)."""

    id: str = Field(alias="_id", description="ObjectId.")
    slug: str
    name: str


class CategoryDocument(Schema):
    """A category document as stored ("Category Hierarchy" use case), with ``children`` added."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(alias="_id", description="ObjectId.")
    name: str
    slug: str
    parent_id: Optional[str] = Field(None, description="ObjectId of the parent; null at the top.")
    ancestors: list[Crumb] = Field(description="Root first, parent last.")
    taxonomy_id: Optional[int] = None
    children: list[Crumb] = Field(description="Direct subcategories, by name.")


class ProductCard(Schema):
    """A product of a listing: what a category page's card shows."""

    id: str = Field(alias="_id", description="ObjectId.")
    sku: str
    title: str
    type: str
    artist: Optional[str] = None
    issue_date: Optional[str] = Field(None, description="ISO 8601, UTC.")
    pricing: Pricing
    variants: list[Variant] = Field([], description="Its variants, when it has any.")
    currency: str
    url: str = Field(description="The product document in this API.")


class ProductPage(Schema):
    """A page of the products of a category and its whole subtree."""

    category: Crumb
    sort: str
    page: int = Field(ge=1)
    pages: int
    per_page: int = Field(ge=1, description="Products a page: the shop's CATALOG_PAGE_SIZE (24 unless set).")
    count: int = Field(description="Products in the category and its subtree.")
    products: list[ProductCard]
