"""``Product.imports`` (``ProductImportManager``): the product imports' writes and reads by SKU
(``catalog/transfer/imports``).

The bulk functions an import writes through: products created or updated by SKU (keeping
``title_lower``, ``keywords``, ``listed_in`` and the categories' kept counts as ``save()``
does, and bumping the catalog's version), variants, a price feed, and the reads the checks
need, each of ``SKUS_PER_READ`` SKUs at a time.
"""

from django.db import models
from pymongo import InsertOne, UpdateOne

from core.mongo.collections import MongoCollectionMixin

from catalog.fields import as_stored
from catalog.products.variants import apply_to_document, variant_in
from catalog.store import writes as catalog_writes
from catalog.store.siblings import catalog_model


def _new_pricing(pricing, given):
    """The pricing (cents) after a feed gave ``given`` (``retail`` and/or ``list``) for a
    product or variant priced ``pricing``: savings derived again."""
    retail = given.get("retail", pricing.get("retail", 0))
    if "list" in given:
        list_cents = given["list"]
    elif pricing.get("list") in (None, pricing.get("retail")):
        list_cents = retail
    else:
        list_cents = pricing["list"]
    savings = max(list_cents - retail, 0)
    return {**pricing, "list": list_cents, "retail": retail, "savings": savings,
            "pct_savings": savings * 100 // list_cents if list_cents else 0}


#: SKUs per ``$in`` of the imports' reads: SecantusDB 0.7.0b3 compares each indexed match with
#: (docs/local-server-differences.md: local-server difference 20)
#: every value of an ``$in``, so one of 1,000 SKUs costs about 6 times ten of 100 (MongoDB serves
#: both from the index alike).
SKUS_PER_READ = 100


def _by_sku(collection, skus, projection=None, field="sku"):
    """The documents whose ``field`` is among ``skus``, read ``SKUS_PER_READ`` at a time."""
    skus = list(dict.fromkeys(str(s) for s in skus))
    for start in range(0, len(skus), SKUS_PER_READ):
        yield from collection.find({field: {"$in": skus[start:start + SKUS_PER_READ]}}, projection)


#: What the feeds read of a product: what ``writes.facts`` needs (to bump the versions of
#: what they change), with the whole ``pricing``.
_FACTS = {**{k: 1 for k in catalog_writes.FACTS_FIELDS if not k.startswith(("pricing.", "variants."))},
          "pricing": 1, "variants": 1}


def _with_variants(stored, variants):
    """The ``$set`` of a product (``stored``: its ``sku`` and ``pricing``) given ``variants``:
    them, ``skus``, its pricing (its cheapest variant's: ``catalog/products/variants.py``) and
    ``variant_in`` (``stored``'s ``listed_in`` paired with their options)."""
    document = apply_to_document({"sku": stored["sku"], "pricing": stored.get("pricing"), "variants": variants})
    return {"variants": variants, "skus": document["skus"], "pricing": document["pricing"],
            "variant_in": variant_in(stored.get("listed_in"), variants)}


def _counts():
    """``ListingCount.objects``."""
    return catalog_model("ListingCount").objects


def _categories():
    """``Category.objects``."""
    return catalog_model("Category").objects


class ProductImportManager(MongoCollectionMixin, models.Manager):
    """``Product.imports``: the imports' bulk writes and reads by SKU (see the module docstring)."""

    def import_products(self, rows, dry_run=False, mark=None):
        """Create or update the products of ``rows`` (dicts of the fields an import sets, each
        with ``sku``), by SKU; a product equal to what is stored is not written.

        One read of the stored products, one of the categories' ancestors, then (unless
        ``dry_run``) one unordered ``bulk_write``: an insert per new product (the fields
        not given take the model's defaults), a ``$set`` of the fields that differ per
        changed one (so a field the row does not carry, such as ``shipping``, an uploaded
        cover or ``variants``, stays as it is). ``title_lower``, ``keywords`` and
        ``listed_in`` are recomputed as ``save()`` does, the categories whose products
        change are marked and recounted around the write (``ListingCount.objects.changing``)
        and the versions of what changed are bumped after it (``writes.products_written``); with ``mark`` (the ``mark`` of
        ``ListingCount.objects.changing_in_steps``, for an import of many batches) they are
        only marked, and recounted once at the end of the import. The reads are of
        ``SKUS_PER_READ`` SKUs each. Returns ``{"created": [skus], "updated": [skus],
        "unchanged": [skus]}``.
        """
        # Dates as pymongo reads them back (naive UTC), so that an unchanged row equals its document.
        rows = [as_stored(r) for r in rows]
        stored = {d["sku"]: d for d in _by_sku(self.collection, [r["sku"] for r in rows])}
        category_ids = {c for r in rows for c in r.get("categories") or ()}
        category_ids.update(c for d in stored.values() for c in d.get("categories") or ())
        ancestors = _categories().ancestor_ids(category_ids)
        writes, relisted, changes = [], set(), []
        report = {"created": [], "updated": [], "unchanged": []}
        for row in rows:
            current = stored.get(row["sku"])
            base = current or {"description": "", "categories": [], "shipping": None, "image": ""}
            document = {**base, **row}
            catalog_writes.derive_product_fields(document, ancestors)
            if current is None:
                changes.append((None, catalog_writes.facts(document)))
                writes.append(InsertOne(document))
                relisted.update(document["listed_in"])
                report["created"].append(row["sku"])
                continue
            changed = {k: v for k, v in document.items() if k not in current or current[k] != v}
            if not changed:
                report["unchanged"].append(row["sku"])
                continue
            if "listed_in" in changed:
                relisted.update(current.get("listed_in") or [], document["listed_in"])
            writes.append(UpdateOne({"_id": current["_id"]}, {"$set": changed}))
            changes.append((catalog_writes.facts(current), catalog_writes.facts(document)))
            report["updated"].append(row["sku"])
        if writes and not dry_run:
            try:
                if mark is not None:
                    mark(relisted)
                    self.collection.bulk_write(writes, ordered=False)
                else:
                    with _counts().changing(relisted):
                        self.collection.bulk_write(writes, ordered=False)
            finally:
                catalog_writes.products_written(changes)
        return report

    def import_variants(self, entries, dry_run=False):
        """Add or replace variants: ``entries`` is ``[(product SKU, {sku, options, pricing})]``;
        each entry replaces the product's variant of the same SKU or is appended to its
        ``variants``. One read of the products, then (unless ``dry_run``) one
        ``bulk_write`` of a ``$set`` of ``variants`` per changed product, and the catalog's
        version bumped. Returns ``{"created": [skus], "updated": [skus], "unchanged": [skus],
        "missing": [(product SKU, variant SKU)]}`` (missing: no such product)."""
        entries = [(product_sku, as_stored(entry)) for product_sku, entry in entries]  # dates naive UTC, as read
        stored = {d["sku"]: d for d in _by_sku(self.collection, [p for p, _ in entries],
                                               _FACTS)}
        variants = {sku: list(d.get("variants") or []) for sku, d in stored.items()}
        report = {"created": [], "updated": [], "unchanged": [], "missing": []}
        changed = set()
        for product_sku, entry in entries:
            if product_sku not in variants:
                report["missing"].append((product_sku, entry["sku"]))
                continue
            current = variants[product_sku]
            at = next((i for i, v in enumerate(current) if v.get("sku") == entry["sku"]), None)
            if at is None:
                current.append(entry)
                report["created"].append(entry["sku"])
            elif {**current[at], **entry} == current[at]:
                report["unchanged"].append(entry["sku"])
                continue
            else:
                current[at] = {**current[at], **entry}
                report["updated"].append(entry["sku"])
            changed.add(product_sku)
        if changed and not dry_run:
            try:
                self.collection.bulk_write([UpdateOne({"_id": stored[sku]["_id"]}, {"$set": _with_variants(
                    stored[sku], variants[sku])}) for sku in changed], ordered=False)
            finally:
                catalog_writes.products_written(
                    (catalog_writes.facts(stored[sku]),
                     catalog_writes.facts({**stored[sku], **_with_variants(stored[sku], variants[sku])}))
                    for sku in changed)
        return report

    def known_skus(self, skus):
        """``{sku: True}`` for a SKU among ``skus`` that is sold by itself (a variant, or a product
        without variants), ``{sku: False}`` for a product with variants (sold as its variants:
        ``catalog/products/variants.py``); SKUs that name nothing are left out. Reads of
        ``SKUS_PER_READ`` SKUs on the ``skus`` index (a product's SKU and its variants')."""
        wanted, found = {str(s) for s in skus}, {}
        for d in _by_sku(self.collection, wanted, {"sku": 1, "skus": 1, "variants.sku": 1}, field="skus"):
            for sku in wanted.intersection(d.get("skus") or ()):
                found[sku] = sku != d["sku"] or not d.get("variants")
        return found

    def images_of(self, skus):
        """``{product SKU: (product id, [stored image names in position order])}`` of the products
        among ``skus``: their ``images`` (``catalog/media/gallery.py``), or their ``image`` alone for a
        product whose cover was set before it kept ``images`` (reads of ``SKUS_PER_READ`` SKUs)."""
        found = {}
        for d in _by_sku(self.collection, skus, {"sku": 1, "image": 1, "images.path": 1}):
            paths = [i["path"] for i in d.get("images") or [] if i.get("path")]
            found[d["sku"]] = (d["_id"], paths or ([d["image"]] if d.get("image") else []))
        return found

    def ids_of(self, skus):
        """``{product SKU: product id}`` of the products among ``skus`` (reads of ``SKUS_PER_READ`` SKUs)."""
        return {d["sku"]: d["_id"] for d in _by_sku(self.collection, skus, {"sku": 1})}

    def variant_owners(self, skus):
        """``{variant SKU: its product's SKU}`` for the SKUs among ``skus`` that are variants
        (reads of ``SKUS_PER_READ`` SKUs on the ``skus`` index)."""
        wanted, owners = {str(s) for s in skus}, {}
        for d in _by_sku(self.collection, wanted, {"sku": 1, "variants.sku": 1}, field="skus"):
            owners.update({v["sku"]: d["sku"] for v in d.get("variants") or [] if v.get("sku") in wanted})
        return owners

    def product_types_of(self, skus):
        """``{product SKU: type name}`` of the products among ``skus`` (one read)."""
        return {d["sku"]: d.get("type") for d in _by_sku(self.collection, skus, {"sku": 1, "type": 1})}

    def import_prices(self, prices, dry_run=False):
        """A price feed: ``prices`` is ``{sku: {"retail": cents, "list": cents}}`` (either may
        be absent: it keeps its stored value; a missing list price follows the retail one
        only when they were equal). A SKU is a product's or a variant's. ``savings`` and
        ``pct_savings`` are derived again. Nothing else of the product changes.

        Two reads (products by ``sku``, then by the ``skus`` index for the rest), then (unless
        ``dry_run``) one unordered ``bulk_write``: a ``$set`` of the pricing per changed
        product, and per product whose variants' prices change a ``$set`` of its
        ``variants`` and of its pricing (its cheapest variant's), then the versions of
        what changed bumped (``writes.products_written``). Returns ``{"updated": [skus], "unchanged": [skus],
        "missing": [skus]}``.
        """
        prices = dict(prices)
        skus = list(prices)
        report = {"updated": [], "unchanged": [], "missing": []}
        writes, seen, changes = [], set(), []
        for d in _by_sku(self.collection, skus, _FACTS):
            seen.add(d["sku"])
            pricing = _new_pricing(d.get("pricing") or {}, prices[d["sku"]])
            if pricing == d.get("pricing"):
                report["unchanged"].append(d["sku"])
            else:
                writes.append(UpdateOne({"_id": d["_id"]}, {"$set": {"pricing": pricing}}))
                changes.append((catalog_writes.facts(d), catalog_writes.facts({**d, "pricing": pricing})))
                report["updated"].append(d["sku"])
        rest = [s for s in skus if s not in seen]
        if rest:
            for d in _by_sku(self.collection, rest, _FACTS, field="skus"):
                variants, touched = [dict(v) for v in d.get("variants") or []], False
                for variant in variants:
                    sku = variant.get("sku")
                    if sku not in prices or sku in seen:
                        continue
                    seen.add(sku)
                    pricing = _new_pricing(variant.get("pricing") or {}, prices[sku])
                    if pricing == variant.get("pricing"):
                        report["unchanged"].append(sku)
                    else:
                        variant["pricing"], touched = pricing, True
                        report["updated"].append(sku)
                if touched:
                    # The whole array, not "variants.$.pricing": one write keeps the product's
                    # pricing (its cheapest variant's) in step with its variants'.
                    update = _with_variants(d, variants)
                    writes.append(UpdateOne({"_id": d["_id"]}, {"$set": update}))
                    changes.append((catalog_writes.facts(d), catalog_writes.facts({**d, **update})))
        report["missing"] = [s for s in skus if s not in seen]
        if writes and not dry_run:
            try:
                self.collection.bulk_write(writes, ordered=False)
            finally:
                catalog_writes.products_written(changes)
        return report
