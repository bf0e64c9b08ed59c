"""One import, from a file to a report: a checking pass, then a writing pass, both streamed.

``import_file(path, ...)`` reads the file once to check every row (keeping
only the SKUs seen, the lines refused, and one batch of rows for the checks
that need the database), and, when no row is refused (or the operator asked
for the good rows only), once more to write it a batch at a time (twice when
the file has variant rows: products first, so that a variant may come before
its product). A dry run does the writing pass without writing, so its report
says what would be created, changed and left unchanged.
"""

from dataclasses import dataclass, field

from catalog.models import Category, ListingCount, Product

from catalog.transfer.imports.parse import rows
from catalog.transfer.imports.validate import FeedRow, ProductRow, RowChecker, RowError, VariantRow
from catalog.transfer.imports.write import ImageError, Writer, image_source

#: Rows written per batch (one bulk write of products, one of stock).
BATCH_SIZE = 1000
#: The refused rows a report keeps (it counts them all).
MOST_ERRORS_KEPT = 200


@dataclass
class ImportReport:
    """What an import did (or, for a dry run, would do): SKUs ``created``, ``updated``,
    ``unchanged`` (products and variants, or feed SKUs), stock documents ``stock_created`` and
    ``stock_changed``, and ``refused`` rows: the count and the first ``MOST_ERRORS_KEPT`` as
    ``(line, column, reason)``. ``written`` is False when nothing was written."""

    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    stock_created: int = 0
    stock_changed: int = 0
    refused: int = 0
    errors: list = field(default_factory=list)
    written: bool = False
    dry_run: bool = False

    def refuse(self, line, column, reason):
        """Count a bad row; keep its ``(line, column, reason)`` among the first ones."""
        self.refused += 1
        if len(self.errors) < MOST_ERRORS_KEPT:
            self.errors.append((line, column, reason))

    def count_products(self, done):
        """Add a manager's ``{"created": [...], "updated": [...], "unchanged": [...]}``."""
        self.created += len(done.get("created", ()))
        self.updated += len(done.get("updated", ()))
        self.unchanged += len(done.get("unchanged", ()))

    def count_stock(self, done):
        """Add ``Inventory.objects.set_stock_many``'s counts."""
        self.stock_created += done["created"]
        self.stock_changed += done["changed"]

    def summary(self):
        """One line: what was (or would be) done."""
        head = f"{self.rows} rows: {self.created} created, {self.updated} changed, {self.unchanged} unchanged, " \
               f"{self.refused} refused; stock: {self.stock_created} created, {self.stock_changed} changed"
        if self.refused and not self.written and not self.dry_run:
            return f"{head}. Nothing was imported (the file has bad rows; --good-rows-only imports the others)."
        return f"{head} ({'dry run: nothing written' if self.dry_run else 'written' if self.written else 'nothing to write'})."

    def error_lines(self):
        """``"line 12, column price: a price cannot be negative"`` for each kept bad row."""
        return [f"line {line}" + (f", column {column}" if column else "") + f": {reason}"
                for line, column, reason in self.errors]


class _Checks:
    """The first pass: every row checked, with the database checks made a batch at a time."""

    def __init__(self, checker, report, media_dir):
        self.checker, self.report, self.media_dir = checker, report, media_dir
        self.bad_lines = set()
        self.has_variants = False
        self.batch = []

    def refuse(self, line, column, reason):
        """Refuse the row at ``line`` (once: its first reason is the one reported)."""
        if line in self.bad_lines:
            return
        self.bad_lines.add(line)
        self.report.refuse(line, column, reason)

    def add(self, row):
        try:
            checked = self.checker.check(row)
        except RowError as error:
            self.refuse(row.line, error.column, error.reason)
            return
        self.has_variants |= isinstance(checked, VariantRow)
        self.batch.append(checked)
        if len(self.batch) >= BATCH_SIZE:
            self.flush()

    def flush(self):
        """The batch's checks against the database: a feed's SKUs exist and are sold by
        themselves (not a product with variants); a product's SKU is no
        stored variant's and a variant's no stored product's nor another product's variant;
        each image is a stored one of the product or a file in the media folder. A read per 100 SKUs each."""
        rows = [r for r in self.batch if isinstance(r, (ProductRow, VariantRow))]
        if rows:
            owners = Product.imports.variant_owners([r.sku for r in rows])
            variants = [r for r in rows if isinstance(r, VariantRow)]
            products = Product.imports.product_types_of([r.sku for r in variants]) if variants else {}
            for r in rows:
                owner = owners.get(r.sku)
                if isinstance(r, ProductRow) and owner:
                    self.refuse(r.line, "sku", f"{r.sku} is a variant of {owner}")
                elif isinstance(r, VariantRow) and r.sku in products:
                    self.refuse(r.line, "sku", f"{r.sku} is a product's SKU")
                elif isinstance(r, VariantRow) and owner not in (None, r.variant_of):
                    self.refuse(r.line, "sku", f"{r.sku} is a variant of {owner}")
        feed = [r for r in self.batch if isinstance(r, FeedRow)]
        if feed:
            known = Product.imports.known_skus([r.sku for r in feed])
            for r in feed:
                if r.sku not in known:
                    self.refuse(r.line, "sku", f"no product or variant with SKU {r.sku}")
                elif not known[r.sku]:  # its pricing is its cheapest variant's; it has no stock
                    self.refuse(r.line, "sku", f"{r.sku} is sold as its variants: give their SKUs")
        with_images = [r for r in self.batch if isinstance(r, ProductRow) and r.images and r.line not in self.bad_lines]
        if with_images:
            stored = Product.imports.images_of([r.sku for r in with_images])
            for r in with_images:
                kept = stored.get(r.sku, (None, []))[1]
                try:
                    for cell in r.images:
                        if cell not in kept:
                            image_source(cell, self.media_dir)
                except ImageError as error:
                    self.refuse(r.line, "images", str(error))
        self.batch = []

    def finish(self):
        """The last batch, then the variants whose product was not in the file above them:
        it must be in the file (below) or in the catalog, of the same type (a read per batch)."""
        self.flush()
        pending = [(line, sku, kind) for line, sku, kind in self.checker.variant_parents
                   if sku not in self.checker.product_types]
        for start in range(0, len(pending), BATCH_SIZE):
            chunk = pending[start:start + BATCH_SIZE]
            stored = Product.imports.product_types_of({sku for _line, sku, _kind in chunk})
            for line, sku, kind in chunk:
                if sku not in stored:
                    self.refuse(line, "variant_of", f"no product with SKU {sku}")
                elif stored[sku] != kind:
                    self.refuse(line, "type", f"{sku} is a {stored[sku]}")
        for line, sku, kind in self.checker.variant_parents:
            if self.checker.product_types.get(sku, kind) != kind:
                self.refuse(line, "type", f"{sku} is a {self.checker.product_types[sku]}")


def import_file(path, file_format=None, *, only=None, dry_run=False, good_rows_only=False,
                media_dir=None, progress=None, batch_size=None):
    """Import the product file at ``path`` (CSV or JSON Lines; ``file_format`` None: from the
    name) and return an ``ImportReport``.

    ``only``: None for a full import (a row per product or variant), or a set among
    ``validate.FEED_FIELDS`` (``price``, ``list_price``, ``stock``) for a feed updating
    those fields of existing SKUs. ``dry_run``: write nothing. ``good_rows_only``: write
    the good rows of a file with bad ones (otherwise such a file changes nothing).
    ``media_dir``: the folder the ``images`` paths start from. ``progress``: called with
    the number of rows done since the last call (a progress bar's ``update``).
    Raises ``parse.FileError`` for a file that cannot be read at all.
    """
    size = batch_size or BATCH_SIZE
    tick = progress or (lambda n: None)
    report = ImportReport(dry_run=dry_run)
    checker = RowChecker(Category.objects.ids_by_path(), only)
    checks = _Checks(checker, report, media_dir)
    for row in rows(path, file_format):
        report.rows += 1
        checks.add(row)
        tick(1)
    checks.finish()
    if report.refused and not (good_rows_only or dry_run):
        return report
    with ListingCount.objects.changing_in_steps() as mark:
        _write(path, file_format, checker, checks, Writer(report, dry_run, media_dir, mark), only, size, tick)
    report.written = not dry_run
    return report


def _write(path, file_format, checker, checks, writer, only, size, tick):
    """The writing pass (two for a file with variants: products first)."""
    kinds = [(FeedRow, writer.feed)] if only else [(ProductRow, writer.products)]
    if not only and checks.has_variants:
        kinds.append((VariantRow, writer.variants))
    for kind, write in kinds:
        checker = RowChecker(checker.category_ids, only)  # the same categories, no read
        batch = []
        for row in rows(path, file_format):
            tick(1)
            if row.line in checks.bad_lines:
                continue
            try:
                checked = checker.check(row)
            except RowError as error:  # never expected: the first pass refused every bad row
                checks.refuse(row.line, error.column, error.reason)
                continue
            if isinstance(checked, kind):
                batch.append(checked)
                if len(batch) >= size:
                    write(batch)
                    batch = []
        if batch:
            write(batch)
