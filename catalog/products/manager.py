"""``Product.objects`` (``ProductManager``): the reads of products by SKU, as raw pymongo
("Product Catalog" use case), and Django's ORM (the default manager: the admin, forms).

A product by SKU (for the cart and the inventory), the product page's product with its
stock, a product document by path (the API), and what checkout, the product form and the
order summary read of a few SKUs. The other jobs are managers of their own, on the model:
``Product.listings`` (cards and listings), ``Product.search``, ``Product.facets``,
``Product.writes``, ``Product.imports``, ``Product.exports``, ``Product.reports``
(``docs/architecture.md``, "Managers are raw pymongo"). See ``docs/operations.md``
("Product Catalog" use case).
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import cached, product_scope
from catalog.products.variants import line_title, options_label
from catalog.store.subdocument_reads import SubdocumentMixin


@dataclass(frozen=True)
class LineCover:
    """What a cart line shows of its product (``ProductManager.line_covers``): the ``product``
    (a Product: title, details, image, images), the ``picture`` drawn as the line's cover (the
    variant's own image when it has one, else ``product``) and ``variant``, the variant's
    options as text ("Vinyl"; "" for none)."""

    product: object
    picture: object
    variant: str


@dataclass(frozen=True)
class SkuFacts:
    """What checkout needs of one sold SKU (``ProductManager.checkout_facts``): ``price`` cents
    per unit (None: no retail price), ``weight`` grams per unit, the product's ``product_id``
    (ObjectId) and ``product_sku``, ``product_type`` (its type's name), ``listed_in`` (tuple of
    category ids: its categories and their ancestors) and ``tax_class`` ("" when unset)."""

    price: object
    weight: int
    product_id: object
    product_sku: str
    product_type: str
    listed_in: tuple
    tax_class: str


class ProductManager(SubdocumentMixin, MongoCollectionMixin, models.Manager):
    """``Product.objects``: the "Product Catalog" use case's reads of products by SKU; the
    FoundationDB "Hierarchical Documents" recipe's reads by path (``SubdocumentMixin``, the
    same reads the categories' manager serves); Django's ORM."""

    def get_by_sku(self, sku):
        """The product of ``sku``: the product whose own SKU or one of whose variants' SKUs it is
        (one read, an equality on the ``skus`` index; ``catalog/products/variants.py``). Whether it sells
        that SKU: ``product.sellable_skus``. Raises ``Product.DoesNotExist``."""
        document = self.read_collection.find_one({"skus": str(sku)})
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.from_document(document)

    def read_by_path(self, sku, steps=()):
        """The product document with ``sku``, or its value at ``steps`` (FoundationDB "Hierarchical Documents" recipe): one read.

        ``sku`` may be a variant's: the document is then its product's. The document
        is served as stored, without ``title_lower`` (a search copy of the title), ``skus``
        (its SKU and its variants') and ``variant_in`` (its categories paired with its
        variants' options, for a listing's index), and with ``currency``: the currency of its
        prices, which are integer cents (``settings.SHOP_CURRENCY``). See
        ``SubdocumentMixin.read_path``. Raises ``Product.DoesNotExist``,
        ``MalformedPath``, ``PathNotFound``.
        """
        return self.read_path({"skus": str(sku)}, steps, hidden=("title_lower", "skus", "variant_in"),
                              added={"currency": settings.SHOP_CURRENCY})

    def get_with_availability(self, sku):
        """The product with ``sku`` and its ``available`` units (int, None without a stock
        record), for the product page.

        The product comes from the catalog cache (``catalog/store/cache.py``;
        one read when it is not there), its stock as pages show it
        (``Product.listings.with_availability``: no read while kept). Raises ``Product.DoesNotExist``.
        """
        sku = str(sku)
        document = cached("product", sku, lambda: self.read_collection.find_one(
            {"sku": sku}, {"keywords": 0, "title_lower": 0}), product_scope([sku]))
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        listings = self.model.listings
        return listings.card_from_document(listings.with_availability([document])[0], fields=None)

    def prices_and_weights(self, skus):
        """``{sku: (retail price in cents, shipping weight in grams)}`` of the SKUs among ``skus``
        that a product sells, as they are now (``checkout_facts``, one read)."""
        return {sku: (fact.price, fact.weight) for sku, fact in self.checkout_facts(skus).items()}

    def checkout_facts(self, skus):
        """``{sku: SkuFacts}`` of the SKUs among ``skus`` that a product sells, as they are now:
        what checkout prices a line with (``orders.pricing``): the retail price in cents (a
        variant's own; None for a product without one), the shipping weight in grams (its
        product's; 0 if unset), and what promotions and tax rules match on: the product's
        ``_id`` and SKU, its type's name, ``listed_in`` (its categories with their ancestors)
        and its ``tax_class`` ("" when unset).

        One read from the primary (a write depends on it): ``{skus: {$in: skus}}`` on the
        ``skus`` index, so it costs the same whatever the number of products in the shop. A
        SKU without a product, and the SKU of a product with variants (it names the page and
        sells nothing), are absent.
        """
        wanted = {str(s) for s in skus}
        cursor = self.collection.find({"skus": {"$in": sorted(wanted)}},
                                      {"sku": 1, "type": 1, "listed_in": 1, "tax_class": 1,
                                       "pricing.retail": 1, "shipping.weight": 1,
                                       "variants.sku": 1, "variants.pricing.retail": 1})
        facts = {}
        for d in cursor:
            weight = int((d.get("shipping") or {}).get("weight") or 0)
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    retail = (item.get("pricing") or {}).get("retail")
                    facts[item["sku"]] = SkuFacts(
                        price=None if retail is None else int(retail), weight=weight,
                        product_id=d["_id"], product_sku=d.get("sku", ""), product_type=d.get("type", ""),
                        listed_in=tuple(d.get("listed_in") or ()), tax_class=d.get("tax_class") or "")
        return facts

    def sku_owners(self, skus):
        """``{sku: (product _id, product SKU)}`` for the SKUs among ``skus`` that a product or a
        variant already uses (one read from the primary, on the ``skus`` index): the product
        form's check that a SKU is used once across products and variants."""
        wanted = {str(s) for s in skus}
        cursor = self.collection.find({"skus": {"$in": sorted(wanted)}}, {"sku": 1, "skus": 1})
        return {sku: (d["_id"], d["sku"]) for d in cursor for sku in d.get("skus") or [] if sku in wanted}

    def line_titles(self, skus):
        """``{sku: title}`` of the SKUs among ``skus`` that a product sells: the product's title,
        with a variant's options (``"Let There Be Rock — Vinyl"``, ``variants.line_title``).
        One read on the ``skus`` index. For reports naming what sold."""
        wanted = {str(s) for s in skus}
        cursor = self.read_collection.find({"skus": {"$in": sorted(wanted)}},
                                           {"sku": 1, "title": 1, "variants.sku": 1, "variants.options": 1})
        titles = {}
        for d in cursor:
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    titles[item["sku"]] = line_title(d.get("title", ""), item.get("options"))
        return titles

    def line_covers(self, skus):
        """``{sku: LineCover}`` for the SKUs among ``skus`` that a product sells: its
        ``product`` (a Product: image, title, details, images), the ``picture`` its line shows
        (``{% cover picture %}``: the variant's own image, ``Variant.image``, when it has one,
        as the product page's ``variant_covers`` draws it, else ``product``) and ``variant``,
        the variant's options as text ("Vinyl"; "" for a product without variants). One
        read on the ``skus`` index (read preference). For the cart page and the checkout's
        order summary."""
        wanted = {str(s) for s in skus}
        fields = {"sku", "type", "title", "details", "image", "images"}
        cursor = self.read_collection.find({"skus": {"$in": sorted(wanted)}},
                                           {**dict.fromkeys(fields, 1), "variants.sku": 1,
                                            "variants.options": 1, "variants.image": 1})
        covers = {}
        for d in cursor:
            product = self.from_document({k: v for k, v in d.items() if k != "variants"}, fields)
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    options = item.get("options") if item is not d else None
                    picture = product
                    if item is not d and item.get("image"):  # the variant's own picture
                        picture = self.model(image=item["image"], title=line_title(product.title, options),
                                             details=product.details)
                    covers[item["sku"]] = LineCover(product, picture, options_label(options) if options else "")
        return covers
