"""``Product.writes`` (``ProductWriteManager``): the writes of whole products outside the ORM's
save: the catalog loaders' sync by SKU, the relisting after a category moves, the reset of the
catalog, and the stored facts a save compares with. Each goes through the one owner of catalog
writes (``catalog/store/writes.py``), which bumps the versions of what changed and keeps the
categories' counts. The imports' and feeds' writes are ``Product.imports``
(``catalog/products/import_manager.py``).
"""

from django.db import models
from pymongo import InsertOne, ReplaceOne, UpdateMany, UpdateOne

from core.mongo.collections import MongoCollectionMixin
from core.mongo.documents import model_to_document

from catalog.products.variants import keep_images, variant_in
from catalog.tree.nodes import listed_in
from catalog.store.siblings import catalog_model
from catalog.store import writes


class ProductWriteManager(MongoCollectionMixin, models.Manager):
    """``Product.writes``: products written by SKU, relisted, deleted (see the module docstring)."""

    def sync(self, products, recount=True, bump=True):
        """Make the stored products match ``products`` (Product instances), keyed by SKU.

        One read of the categories' ancestors (for ``listed_in``), one of the
        existing SKUs, then one ``bulk_write`` of what is new or changed, then the versions of
        those products and of their categories (before and after) are bumped (one more write,
        ``writes.products_changing``): a product equal to its stored document is not written. The categories whose
        products change are marked before and recounted after
        (``ListingCount.objects.changing``: 3 more round trips). ``recount=False``
        skips that, for a bulk load into a catalog without kept counts whose caller
        recounts every category at its end (``populatedb``: ``recount_all``); ``bump=False``
        bumps no version, for a bulk load whose caller bumps the epoch at its end
        (``writes.catalog_reset``: one write rather than thousands of versions a batch).
        Products whose SKU is not in ``products`` are left alone; the details are checked
        first (``ProductType.objects.clean_products``). Returns ``{'created', 'updated', 'unchanged'}``.
        """
        products = catalog_model("ProductType").objects.clean_products(products)
        documents = [model_to_document(p, self.db) for p in products]
        ancestors = self._category_ancestors({c for d in documents for c in d.get("categories") or []})
        for document in documents:
            writes.derive_product_fields(document, ancestors)
        skus = [d["sku"] for d in documents]
        stored = {d["sku"]: d for d in self.collection.find({"sku": {"$in": skus}})}
        to_write, report, changes = [], {"created": 0, "updated": 0, "unchanged": 0}, []
        for document in documents:
            current = stored.get(document["sku"])
            if current is None:
                to_write.append(InsertOne(document))
                report["created"] += 1
                changes.append((None, writes.facts(document)))
                continue
            document["_id"] = current["_id"]
            if not document.get("image") and current.get("image"):
                document["image"] = current["image"]  # a cover staff uploaded stays
            if not document.get("images") and current.get("images"):
                document["images"] = current["images"]  # and the images (catalog/media/gallery.py)
            keep_images(document.get("variants"), current.get("variants"))  # and the variants' own
            if current == document:
                report["unchanged"] += 1
            else:
                to_write.append(ReplaceOne({"_id": current["_id"]}, document))
                report["updated"] += 1
                changes.append((writes.facts(current), writes.facts(document)))
        if to_write:
            with writes.products_changing(changes if bump else None, recount=recount):
                self.collection.bulk_write(to_write, ordered=False)
        return report

    def stored_document(self, product_id):
        """Product ``product_id`` as stored with what ``writes.facts`` needs (``FACTS_FIELDS``),
        or None when there is no such product (one read from the primary)."""
        return self.collection.find_one({"_id": product_id}, writes.FACTS_FIELDS)

    def stored_facts(self, product_id):
        """``writes.facts`` of product ``product_id`` as stored, or None when there is no such
        product (one read from the primary: a save depends on it)."""
        document = self.collection.find_one({"_id": product_id}, writes.FACTS_FIELDS)
        return None if document is None else writes.facts(document)

    def _category_ancestors(self, ids):
        """``{category id: [ancestor ids]}`` (``CategoryManager.ancestor_ids``): one read."""
        return catalog_model("Category").objects.ancestor_ids(ids)

    def relist_under(self, category_id, relisted=()):
        """Recompute ``listed_in`` (and ``variant_in``) of every product listed in ``category_id`` or below it, after
        a move of that category (``CategoryWriteManager.move``): one read of those products'
        category lists; when there are any, one read of the categories' (new) ancestors,
        one of those products with variants, and one ``bulk_write`` of one ``update_many`` per
        distinct list and one ``update_one`` per product with variants (its ``variant_in``,
        ``catalog.products.variants.variant_in``), around which the
        categories ``relisted`` (those above it, before and after the move) are marked and
        recounted (``writes.relisting``). Returns how many distinct lists were
        rewritten. The caller bumps the versions (``writes.categories_changed``)."""
        cursor = self.collection.aggregate([{"$match": {"listed_in": category_id}},
                                            {"$group": {"_id": "$categories"}}])
        lists = [row["_id"] or [] for row in cursor]
        if not lists:
            return 0
        ancestors = self._category_ancestors({c for ids in lists for c in ids})
        # The products with variants also pair their new ``listed_in`` with their options
        # (``variant_in``): one update each (a category page's few with variants).
        with_variants = list(self.collection.find({"listed_in": category_id, "variants.0": {"$exists": True}},
                                                  {"categories": 1, "variants.options": 1}))
        with writes.relisting(relisted):
            self.collection.bulk_write([
                *(UpdateMany({"listed_in": category_id, "categories": ids},
                             {"$set": {"listed_in": listed_in(ids, ancestors)}})
                  for ids in lists),
                *(UpdateOne({"_id": d["_id"]}, {"$set": {"variant_in": variant_in(
                    listed_in(d.get("categories") or [], ancestors), d.get("variants"))}})
                  for d in with_variants),
            ], ordered=False)
        return len(lists)

    def delete_all(self):
        """Delete every product, and every category's kept count, kept facet counts and kept
        order counts, the deals' kept counts per saving and the searches' kept summaries; returns
        how many products.
        (``load_catalog --reset``.)"""
        try:
            return self.collection.delete_many({}).deleted_count
        finally:
            catalog_model("ListingCount").objects.forget_all()
            catalog_model("FacetCount").objects.forget_all()
            catalog_model("OrderCount").objects.forget_all()
            catalog_model("SavingsCount").objects.forget_all()
            catalog_model("SearchSummary").objects.forget_all()
            writes.catalog_reset()
