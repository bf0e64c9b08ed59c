"""Checking one row of an import file: what it would write, or why it is refused.

``RowChecker.check(row)`` turns a ``parse.Row`` into a ``ProductRow``, a
``VariantRow`` or a ``FeedRow`` (``--only``), or raises ``RowError`` naming
the column and the reason. Attribute values go through the same validation as
the admin (``types.clean_details`` / ``clean_variant_options``), categories are
resolved by path (an unknown path is a bad row), prices are dollars (cents
stored) and never negative. The checker keeps only the SKUs seen (and the type
of each product row), so that a duplicate SKU within the file is a bad row and
a variant's product can be looked for, in bounded memory.
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from catalog.products.attributes import attr

from catalog.transfer.imports import cells, types
from catalog.transfer.imports.cells import CellError

#: The fields a feed (``--only``) may update.
FEED_FIELDS = ("price", "list_price", "stock")


class RowError(ValueError):
    """A bad row: ``column`` (the column at fault, "" for the whole row) and ``reason``."""

    def __init__(self, column, reason):
        super().__init__(f"{column}: {reason}" if column else reason)
        self.column, self.reason = column, reason


@dataclass
class ProductRow:
    """A product to create or update: ``fields`` are the document's fields the row sets
    (``sku, type, title, details``, and ``description``, ``categories``, ``pricing`` when
    their columns are there); ``stock`` None = leave it; ``images`` a list of paths."""

    line: int
    sku: str
    fields: dict
    stock: int | None = None
    images: list = field(default_factory=list)


@dataclass
class VariantRow:
    """A variant of product ``variant_of``: ``entry`` ``{sku, options, pricing}`` and ``stock``."""

    line: int
    sku: str
    variant_of: str
    type_name: str
    entry: dict
    stock: int | None = None


@dataclass
class FeedRow:
    """A price and stock feed's row (``--only``): ``prices`` ``{"retail": cents, "list": cents}``
    (those given) and ``stock`` (None: not given)."""

    line: int
    sku: str
    prices: dict
    stock: int | None = None


def _pricing(list_cents, retail_cents):
    savings = max(list_cents - retail_cents, 0)
    return {"list": list_cents, "retail": retail_cents, "savings": savings,
            "pct_savings": savings * 100 // list_cents if list_cents else 0}


class RowChecker:
    """Checks rows one at a time against the catalog's types and categories.

    ``category_ids``: ``{path: category id}`` (``Category.objects.ids_by_path``);
    ``only``: None for a full import, else a set among ``FEED_FIELDS``.
    After the pass, ``product_types`` maps each product SKU of the file to its
    type and ``variant_parents`` lists ``(line, variant_of, type)`` of the
    variant rows whose product had not been seen above them.
    """

    def __init__(self, category_ids, only=None):
        self.category_ids = {self._path_key(p): i for p, i in category_ids.items()}
        self.only = set(only) if only else None
        self.seen = set()
        self.product_types = {}
        self.variant_parents = []
        self._types = {}

    @staticmethod
    def _path_key(path):
        return " > ".join(part.strip().casefold() for part in str(path).split(">"))

    def product_type(self, name):
        """The product type called ``name`` (cached), or None."""
        if name not in self._types:
            self._types[name] = types.by_name(name)
        return self._types[name]

    def check(self, row):
        """The row as a ``ProductRow``/``VariantRow``/``FeedRow``. Raises ``RowError``."""
        if row.error:
            raise RowError("", row.error)
        sku = str(row.cells.get("sku") or "").strip()
        if not sku:
            raise RowError("sku", "a SKU is required")
        if len(sku) > 64:
            raise RowError("sku", "a SKU has at most 64 characters")
        if sku in self.seen:
            raise RowError("sku", f"SKU {sku} appears more than once in the file")
        self.seen.add(sku)
        if self.only is not None:
            return self._feed(row, sku)
        if str(row.cells.get("variant_of") or "").strip():
            return self._variant(row, sku)
        return self._product(row, sku)

    def _money(self, cells_, column):
        try:
            return cells.cents(cells_[column], column.replace("_", " "))
        except CellError as error:
            raise RowError(column, str(error)) from None

    def _prices(self, row, required):
        """``(list cents, retail cents)``; list defaults to retail. None when not given."""
        given = {c: row.cells.get(c) for c in ("price", "list_price")}
        if given["price"] in (None, ""):
            if required:
                raise RowError("price", "a price is required")
            return None
        retail = self._money(row.cells, "price")
        list_cents = retail if given["list_price"] in (None, "") else self._money(row.cells, "list_price")
        return list_cents, retail

    def _stock(self, row):
        value = row.cells.get("stock")
        if value in (None, ""):
            return None
        try:
            return cells.count(value)
        except CellError as error:
            raise RowError("stock", str(error)) from None

    def _type(self, row):
        name = str(row.cells.get("type") or "").strip()
        if not name:
            raise RowError("type", "a product type is required")
        product_type = self.product_type(name)
        if product_type is None:
            raise RowError("type", f"no product type called {name!r}")
        return product_type

    def _attributes(self, row, product_type, attributes):
        """``{code: decoded value}`` of the row's attribute columns; ``RowError`` for a cell
        that cannot be read or an attribute the type lacks."""
        by_code = {attr(a, "code"): a for a in attributes}
        others = {attr(a, "code") for a in product_type.attributes} - set(by_code)
        values = {}
        for column, value in row.cells.items():
            if not column.startswith("details.") or value in (None, "", []):
                continue
            code = column[len("details."):]
            if code in others:
                raise RowError(column, "not a column of this kind of row")
            attribute = by_code.get(code)
            if attribute is None:
                raise RowError(column, f"{product_type.name} has no attribute {code!r}")
            try:
                decoded = cells.decode(attribute, value)
            except CellError as error:
                raise RowError(column, str(error)) from None
            if decoded is not None:
                values[code] = decoded
        return values

    @staticmethod
    def _validation_error(error):
        if hasattr(error, "error_dict"):
            code, messages = next(iter(error.message_dict.items()))
            return RowError(f"details.{code}", "; ".join(messages))
        return RowError("", "; ".join(error.messages))

    def _product(self, row, sku):
        product_type = self._type(row)
        title = str(row.cells.get("title") or "").strip()
        if not title:
            raise RowError("title", "a title is required")
        if len(title) > 300:
            raise RowError("title", "a title has at most 300 characters")
        list_cents, retail = self._prices(row, required=True)
        details = self._attributes(row, product_type, [a for a in product_type.attributes if not attr(a, "variant")])
        try:
            details = types.clean_details(product_type, details)
        except ValidationError as error:
            raise self._validation_error(error) from None
        fields = {"sku": sku, "type": product_type.name, "title": title,
                  "pricing": _pricing(list_cents, retail), "details": details}
        if "description" in row.cells:
            fields["description"] = str(row.cells["description"] or "").strip()
        if "categories" in row.cells:
            ids = []
            for path in cells.split(row.cells["categories"]):
                category_id = self.category_ids.get(self._path_key(path))
                if category_id is None:
                    raise RowError("categories", f"no category {path!r}")
                if category_id not in ids:
                    ids.append(category_id)
            fields["categories"] = ids
        images = cells.split(row.cells.get("images") or "")
        self.product_types[sku] = product_type.name
        return ProductRow(row.line, sku, fields, self._stock(row), images)

    def _variant(self, row, sku):
        product_type = self._type(row)
        variant_of = str(row.cells["variant_of"]).strip()
        if variant_of == sku:
            raise RowError("variant_of", "a variant cannot be its own product")
        options = self._attributes(row, product_type, product_type.variant_attributes)
        try:
            options = types.clean_variant_options(product_type, options)
        except ValidationError as error:
            raise self._validation_error(error) from None
        if not options:
            raise RowError("variant_of", f"a variant needs a value of {product_type.name}'s variant attributes")
        list_cents, retail = self._prices(row, required=True)
        if self.product_types.get(variant_of, product_type.name) != product_type.name:
            raise RowError("type", f"{variant_of} is a {self.product_types[variant_of]}")
        if variant_of not in self.product_types:
            self.variant_parents.append((row.line, variant_of, product_type.name))
        entry = {"sku": sku, "options": options, "pricing": _pricing(list_cents, retail)}
        return VariantRow(row.line, sku, variant_of, product_type.name, entry, self._stock(row))

    def _feed(self, row, sku):
        prices = {}
        if "price" in self.only and row.cells.get("price") not in (None, ""):
            prices["retail"] = self._money(row.cells, "price")
        if "list_price" in self.only and row.cells.get("list_price") not in (None, ""):
            prices["list"] = self._money(row.cells, "list_price")
        stock = self._stock(row) if "stock" in self.only else None
        if not prices and stock is None:
            raise RowError("", f"nothing to update: no {' or '.join(sorted(self.only))} given")
        return FeedRow(row.line, sku, prices, stock)
