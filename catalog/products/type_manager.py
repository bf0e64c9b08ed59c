"""``ProductType.objects``: the product types staff define, read cached with the catalog, and
the rewrites of stored products a change of type needs.

A type is one document of ``product_types`` with its attributes embedded
(``{name, slug, attributes: [{code, label, kind, ...}]}``); a product names
its type by ``name`` in its ``type`` and holds the values in ``details``
("Product Catalog" use case's document shape). Reads within a request come
from the catalog cache (``catalog/store/cache.py``: keyed by the catalog's
version, which every write here changes).

What a change of a type does to the products already stored
(``save_type``):

* a rename of the type rewrites every product's ``type`` (one ``update_many``);
* a choice renamed (``old => new`` in the admin) rewrites the stored values
  (one ``update_many`` per renamed choice);
* an attribute added, removed, made required, or a choice removed, rewrites
  nothing: see ``docs/staff.md`` for what staff then see.
"""

from django.core.exceptions import ValidationError
from django.db import models
from pymongo import UpdateOne

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import cached
from catalog.store import writes as catalog_writes
from catalog.store.siblings import catalog_model
from catalog.products.attributes import first_facet_attributes


class ProductTypeManager(MongoCollectionMixin, models.Manager):
    """Reads of product types by name (cached) and their writes with the products they change."""

    def _documents(self):
        """Every type's document, ``{name: document}``: one read, cached with the catalog's epoch
        (which a type's save bumps), so a request reads the types once whatever it asks of
        them (a shop has a handful of types; outside a request, one read each call)."""
        return cached("product-types", (), lambda: {
            d["name"]: d for d in self.read_collection.find({})}, scope=())

    def by_name(self, name):
        """The ProductType named ``name`` (str), or None (``_documents``: no read when cached)."""
        document = self._documents().get(str(name))
        return None if document is None else self.from_document(dict(document))

    def by_names(self, names):
        """``{name: ProductType}`` of those of ``names`` that exist (``_documents``)."""
        names = sorted({str(n) for n in names})
        if not names:
            return {}
        documents = self._documents()
        return {n: self.from_document(dict(documents[n])) for n in names if n in documents}

    def names(self):
        """Every type's name, sorted (``_documents``): the choices of a product's type."""
        return sorted(self._documents())

    def clean_products(self, products):
        """``products`` (Product instances) as a list, each one's ``details`` replaced by the
        cleaned ones (``Product.clean_details``); one read of their types. Raises
        ValidationError (``{"type": [...]}`` for a type that does not exist, ``{code: [...]}``
        for the details) before any is changed."""
        products = list(products)
        types = self.by_names({p.type for p in products})
        cleaned = []
        for product in products:
            if product.type not in types:
                raise ValidationError({"type": [f"There is no product type named {product.type!r}."]})
            cleaned.append(product.clean_details(types[product.type]))
        for product, details in zip(products, cleaned):
            product.details = details
        return products

    def facet_attributes(self, type_names):
        """The facet attributes (``facet=True``) of the types named in ``type_names``,
        deduplicated by code (the first type's wins), in display order (the types' in name
        order, each type's attributes in its order). Returns a list of ``Attribute``."""
        return first_facet_attributes(self.by_names(type_names))

    def products_using(self, product_type, code, value):
        """How many products of ``product_type`` store ``value`` under ``details.<code>`` (as the
        value, or in a list of values): one count."""
        products = self.get_collection(catalog_model("Product")._meta.db_table)
        return products.count_documents({"type": product_type.name, f"details.{code}": value})

    def product_count(self, product_type):
        """How many products have ``product_type`` (one count)."""
        products = self.get_collection(catalog_model("Product")._meta.db_table)
        return products.count_documents({"type": product_type.name})

    def delete_type(self, product_type):
        """Delete ``product_type`` (the caller checked ``product_count`` is 0); bump the catalog."""
        product_type.delete()
        catalog_writes.product_types_changed()

    def save_type(self, product_type, renamed_choices=None):
        """Save ``product_type`` (a ProductType, new or changed) and rewrite the stored
        products its changes rename.

        ``renamed_choices``: ``{code: {old value: new value}}`` for the choices
        renamed. When the stored type had another name, every product's ``type``
        is rewritten (one ``update_many``); each renamed choice rewrites the
        products storing it (a choice: one ``update_many`` per renamed value; a
        multiple choice: one read of the products holding a renamed value and one
        ``bulk_write`` of their new lists). Then the catalog's version is bumped.
        Returns the type.
        """
        previous = None
        if product_type.pk is not None:
            previous = self.collection.find_one({"_id": product_type.pk}, {"name": 1})
        product_type.save()
        products = self.get_collection(catalog_model("Product")._meta.db_table)
        name = product_type.name
        if previous is not None and previous["name"] != name:
            products.update_many({"type": previous["name"]}, {"$set": {"type": name}})
        for code, renames in (renamed_choices or {}).items():
            renames = {old: new for old, new in renames.items() if old != new}
            attribute = product_type.attribute(code)
            if not renames or attribute is None:
                continue
            path = f"details.{code}"
            if attribute.kind != "multichoice":
                for old, new in renames.items():
                    products.update_many({"type": name, path: old}, {"$set": {path: new}})
                continue
            # A multiple choice's lists: read the products holding a renamed value, then one
            # bulk write of each one's new list, on the condition that its list is unchanged.
            # (The positional "$set": {"details.<code>.$": new} MongoDB evaluates is refused by
            # SecantusDB 0.7.0b3, "The positional operator did not find the match needed".)
            # (docs/local-server-differences.md: local-server difference 5)
            held = products.find({"type": name, path: {"$in": list(renames)}}, {path: 1})
            writes = []
            for document in held:
                values = document["details"][code]
                writes.append(UpdateOne({"_id": document["_id"], path: values},
                                        {"$set": {path: [renames.get(v, v) for v in values]}}))
            if writes:
                products.bulk_write(writes, ordered=False)
        catalog_writes.product_types_changed()
        return product_type
