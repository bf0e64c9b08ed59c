"""``ProductImage.objects``: a product's images, and the copy of them its document keeps.

The product page and the listing cards read only the product's document; a
product's images are copied into it (``images: [{path, alt}]`` in position
order, ``image`` the first's path) whenever they change: ``sync``.
"""

from django.db import models

from core.mongo.collections import MongoCollectionMixin

from . import writes


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
