"""The writing side of an import: checked rows to the catalog's and the inventory's managers.

Products are written in batches through ``Product.imports.import_products``
(which keeps ``title_lower``, ``keywords``, ``listed_in`` and the categories'
kept counts, and bumps the catalog's version), variants through
``Product.imports.import_variants``, prices of a feed through
``Product.imports.import_prices``, and every stock level through
``Inventory.objects.set_stock_many`` (compare-and-set on the available
quantity: the carts' reservations stay and ``qty + carted + sold = stocked``
holds). Images are copied from the operator's media folder into Django's
default storage and become the product's ``ProductImage``s, in the cell's order
(``ProductImage.objects.replace_many``, which keeps the copy on the product's
document as ``sync`` does; ``catalog/media/gallery.py``).
"""

import os
from pathlib import Path

from django import forms
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage

from catalog.media.gallery import ProductImage
from catalog.media.covers import validate_cover
from catalog.models import Product
from inventory.models import Inventory


class ImageError(ValueError):
    """An image cell that cannot be used: ``str(error)`` says why."""


def image_source(path, media_dir):
    """The file ``path`` (relative to ``media_dir``) names, as a ``Path``. Raises
    ``ImageError`` for a URL, a missing ``media_dir``, a path outside it, a missing file, or
    an image the admin would refuse as a cover (``catalog.media.covers.validate_cover``; Pillow's
    decompression-bomb limit)."""
    text = str(path).strip()
    if "://" in text:
        raise ImageError("image URLs are not fetched: give a file path under --media-dir")
    if not media_dir:
        raise ImageError("image files need --media-dir (the folder their paths start from)")
    root = Path(media_dir).resolve()
    source = (root / text).resolve()
    if root not in source.parents:
        raise ImageError(f"{text!r} is outside the media folder")
    if not source.is_file():
        raise ImageError(f"no file {text!r} in the media folder")
    with open(source, "rb") as handle:
        try:  # the admin's checks: Pillow (and its decompression-bomb limit), then the cover's
            validate_cover(forms.ImageField().to_python(File(handle, name=source.name)))
        except ValidationError as error:
            raise ImageError(f"{text}: {' '.join(error.messages)}") from None
    return source


def store_image(source):
    """Copy the image file ``source`` into the default storage where ``ProductImage.image`` keeps
    its files (``products/``); returns the stored name."""
    with open(source, "rb") as handle:
        return default_storage.save(_image_name(source), File(handle))


def _image_name(source):
    return ProductImage.image.field.generate_filename(None, os.path.basename(source))


class Writer:
    """Writes checked rows a batch at a time; ``report`` (an ``ImportReport``) counts them.
    ``dry_run``: compute what would change, write nothing. ``mark``: the categories' kept
    counts are marked by each batch and recounted once at the end of the import
    (``ListingCount.objects.changing_in_steps``)."""

    def __init__(self, report, dry_run=False, media_dir=None, mark=None):
        self.report, self.dry_run, self.media_dir, self.mark = report, dry_run, media_dir, mark

    def products(self, rows):
        """Create or update the ``ProductRow``s of a batch, then their images, then their stock.
        A product whose images alone change counts as changed."""
        images = self._images(rows)
        done = Product.imports.import_products([row.fields for row in rows], dry_run=self.dry_run, mark=self.mark)
        moved = [sku for sku in done["unchanged"] if sku in images]
        done["unchanged"] = [sku for sku in done["unchanged"] if sku not in images]
        done["updated"] = done["updated"] + moved
        if images and not self.dry_run:
            ids = Product.imports.ids_of(list(images))
            ProductImage.objects.replace_many({ids[sku]: paths for sku, paths in images.items() if sku in ids})
        self.report.count_products(done)
        self.stock({row.sku: row.stock for row in rows if row.stock is not None}
                   | {sku: 0 for sku in done["created"] if sku not in {r.sku for r in rows if r.stock is not None}})

    def _images(self, rows):
        """``{product SKU: [stored names]}`` of the rows whose images differ from the stored ones
        (in order): a cell naming a stored image keeps it, any other is a file of the media
        folder, copied into storage (unless a dry run). One read."""
        wanted = {row.sku: row.images for row in rows if row.images}
        if not wanted:
            return {}
        stored = Product.imports.images_of(list(wanted))
        changed = {}
        for sku, cells_ in wanted.items():
            kept = stored.get(sku, (None, []))[1]
            if cells_ == kept:
                continue
            changed[sku] = [cell if cell in kept else self._store(cell) for cell in cells_]
        return changed

    def _store(self, cell):
        source = image_source(cell, self.media_dir)
        return _image_name(source) if self.dry_run else store_image(source)

    def variants(self, rows):
        """Add or update the ``VariantRow``s of a batch, then their stock."""
        done = Product.imports.import_variants([(row.variant_of, row.entry) for row in rows], dry_run=self.dry_run)
        missing = {sku for _product, sku in done["missing"]}
        if self.dry_run:  # their product is one this import would create
            done["created"] += sorted(missing)
        else:
            for row in rows:
                if row.sku in missing:
                    self.report.refuse(row.line, "variant_of", f"no product with SKU {row.variant_of}")
        self.report.count_products(done)
        created = set(done["created"])
        self.stock({row.sku: row.stock if row.stock is not None else 0 for row in rows
                    if row.stock is not None or row.sku in created})

    def feed(self, rows):
        """Update the prices and stock of the ``FeedRow``s of a batch."""
        prices = {row.sku: row.prices for row in rows if row.prices}
        if prices:
            self.report.count_products(Product.imports.import_prices(prices, dry_run=self.dry_run))
        self.stock({row.sku: row.stock for row in rows if row.stock is not None})

    def stock(self, levels):
        """Set the available stock of ``{sku: units}``."""
        if levels:
            self.report.count_stock(Inventory.objects.set_stock_many(levels, dry_run=self.dry_run))
