"""``ProductImage.objects``: a product's images, and the copy of them its document keeps.

The product page and the listing cards read only the product's document; a
product's images are copied into it (``images: [{path, alt}]`` in position
order, ``image`` the first's path) whenever they change: ``sync``.
"""

from django.db import models
from pymongo import UpdateOne

from core.mongo.collections import MongoCollectionMixin

from catalog.store import writes


class ProductImageManager(MongoCollectionMixin, models.Manager):
    """The images of products (``product_images``), and the copy kept on each product."""

    def for_product(self, product_id):
        """``[{path, alt}]`` of product ``product_id``'s images (an ObjectId) in position order,
        ties in the order they were added (one read, from the primary: a write depends on it)."""
        documents = self.collection.find({"product_id": product_id}, {"image": 1, "alt": 1, "position": 1})
        documents = sorted(documents, key=lambda d: (d.get("position") or 0, d["_id"]))
        return [{"path": d["image"], "alt": d.get("alt") or ""} for d in documents]

    def sync(self, product_id):
        """Copy product ``product_id``'s images (an ObjectId) into its document: ``images`` in
        position order and ``image``, the first's path ("" without images: the pages then show
        the generated cover). Two reads, one write, then the versions of its page and of the
        categories listing it are bumped (``writes.product_shown_changed``: one more write). Returns the ``[{path, alt}]`` written. A product that no longer exists
        is left alone."""
        images = self.for_product(product_id)
        products = self.get_collection("products")
        product = products.find_one({"_id": product_id}, {"sku": 1, "listed_in": 1})
        if product is None:
            return images
        products.update_one({"_id": product_id},
                            {"$set": {"images": images, "image": images[0]["path"] if images else ""}})
        writes.product_shown_changed(product)
        return images

    def replace_many(self, paths_by_product):
        """Make the images of each product ``paths_by_product`` names (``{product id (ObjectId):
        [stored name, ...]}``, in position order, names as ``ProductImage.image`` holds them)
        exactly those (an image the product had keeps its alt text, a new one has none), and
        copy them into the products' documents as ``sync`` does (``images``, and ``image``
        the first's). For a bulk import (``catalog/transfer/imports/write.py``): round trips that do not
        grow with the batch: one read, one delete, one insert, one ``bulk_write`` of the
        products, one read of their SKUs and categories, then their versions bumped. Returns nothing."""
        if not paths_by_product:
            return
        ids = list(paths_by_product)
        alts = {(d["product_id"], d.get("image")): d.get("alt") or "" for d in
                self.collection.find({"product_id": {"$in": ids}}, {"product_id": 1, "image": 1, "alt": 1})}
        documents = [{"product_id": product_id, "image": str(path), "alt": alts.get((product_id, str(path)), ""),
                      "position": position}
                     for product_id, paths in paths_by_product.items() for position, path in enumerate(paths)]
        self.collection.delete_many({"product_id": {"$in": ids}})
        if documents:
            self.collection.insert_many(documents)
        copies = {}
        for document in documents:
            copies.setdefault(document["product_id"], []).append({"path": document["image"], "alt": document["alt"]})
        products = self.get_collection("products")
        products.bulk_write([UpdateOne({"_id": product_id}, {"$set": {
            "images": copies.get(product_id, []), "image": copies[product_id][0]["path"] if copies.get(product_id) else ""}})
            for product_id in ids], ordered=False)
        writes.product_shown_changed(*products.find({"_id": {"$in": ids}}, {"sku": 1, "listed_in": 1}))
