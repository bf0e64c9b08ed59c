"""Exports of products to CSV, in the columns the import reads (``catalog/transfer/imports``).

``write_products(out, category=..., type_name=...)`` writes the products of a
category (and its subtree) and/or of a product type, one row per product and
one per variant below it, by SKU, streamed a batch at a time: a read of a
batch of products, one of their stock. Importing the file again changes
nothing (``tests/catalog/test_export_products.py``). Prices are dollars with
two decimals, categories paths (``Music > Rock``) separated by ``|``, the
type's attributes ``details.<code>`` (see ``catalog/transfer/imports/cells.py``), the
stock the units available.
"""

import contextlib
from itertools import islice

from django.core.management.base import CommandError

from catalog.products.attributes import attr
from core import csvcells
from catalog.transfer.imports import cells
from catalog.transfer.imports.types import all_types, attribute_column, by_name
from catalog.models import Category, Product
from inventory.models import Inventory

BATCH_SIZE = 1000


@contextlib.contextmanager
def output(path, stdout):
    """The text stream a command's export goes to: the file ``path`` (UTF-8, closed after), or
    ``stdout`` when ``path`` is None. Raises ``CommandError`` (one line) when it cannot be written."""
    if not path:
        yield stdout
        return
    try:
        handle = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed below
    except OSError as error:
        raise CommandError(f"Cannot write {path}: {error.strerror}.") from None
    with handle:
        yield handle


def product_columns(product_types):
    """The columns of an export of products of ``product_types`` (a list of types, contract
    shape): the base columns, then ``details.<code>`` for each of their attributes (once
    per code, in the types' order)."""
    columns = list(cells.BASE_COLUMNS)
    for product_type in product_types:
        for attribute in product_type.attributes:
            column = attribute_column(attribute)
            if column not in columns:
                columns.append(column)
    return columns


def _attributes(product_types):
    """``{type name: {code: attribute}}``."""
    return {t.name: {attr(a, "code"): a for a in t.attributes} for t in product_types}


def _images(document):
    """The ``images`` cell of a product: its images' stored names in order (``|`` between), or
    its cover alone for a product that keeps no ``images``."""
    paths = [i["path"] for i in document.get("images") or [] if i.get("path")]
    return cells.SEPARATOR.join(paths) if paths else document.get("image") or ""


def product_rows(documents, attributes, paths, stock):
    """The rows (``{column: text}``) of the product ``documents``: each product, then its
    variants. ``attributes``: ``{type name: {code: attribute}}``; ``paths``: ``{category
    id: path}``; ``stock``: ``{sku: available units}`` (a SKU without a stock document
    gets an empty cell)."""
    for d in documents:
        kind = attributes.get(d.get("type"), {})
        pricing = d.get("pricing") or {}
        row = {
            "sku": d["sku"], "type": d.get("type", ""), "title": d.get("title", ""),
            "description": d.get("description", ""),
            "categories": cells.SEPARATOR.join(paths[c] for c in d.get("categories") or [] if c in paths),
            "list_price": cells.dollars(pricing.get("list", 0)), "price": cells.dollars(pricing.get("retail", 0)),
            "stock": stock.get(d["sku"], ""), "images": _images(d),
        }
        for code, value in (d.get("details") or {}).items():
            if not code.startswith("_") and code in kind:
                row[f"details.{code}"] = cells.encode(kind[code], value)
        yield row
        for variant in d.get("variants") or []:
            pricing = variant.get("pricing") or {}
            row = {"sku": variant["sku"], "type": d.get("type", ""), "variant_of": d["sku"],
                   "list_price": cells.dollars(pricing.get("list", 0)),
                   "price": cells.dollars(pricing.get("retail", 0)), "stock": stock.get(variant["sku"], "")}
            for code, value in (variant.get("options") or {}).items():
                if code in kind:
                    row[f"details.{code}"] = cells.encode(kind[code], value)
            yield row


def write_products(out, category=None, type_name=None, progress=None):
    """Write the CSV of the products listed in ``category`` (a Category, its subtree
    included) and/or of the type called ``type_name`` to the text stream ``out``.

    ``progress``: called with the number of products written since the last call. Returns
    the number of rows written (products and variants). Raises ``LookupError`` for an
    unknown type name.
    """
    if type_name is not None:
        product_type = by_name(type_name)
        if product_type is None:
            raise LookupError(f"no product type called {type_name!r}")
        product_types = [product_type]
    else:
        product_types = all_types()
    writer = csvcells.DictWriter(out, fieldnames=product_columns(product_types), extrasaction="ignore")
    writer.writeheader()
    attributes = _attributes(product_types)
    paths = {i: p for p, i in Category.objects.ids_by_path().items()}
    match = Product.exports.export_match(category.pk if category is not None else None, type_name)
    cursor = iter(Product.exports.for_export(match, batch_size=BATCH_SIZE))
    written = 0
    while batch := list(islice(cursor, BATCH_SIZE)):
        skus = [d["sku"] for d in batch] + [v["sku"] for d in batch for v in d.get("variants") or []]
        stock = Inventory.objects.available_many(skus)
        for row in product_rows(batch, attributes, paths, stock):
            writer.writerow(row)
            written += 1
        if progress:
            progress(len(batch))
    return written
