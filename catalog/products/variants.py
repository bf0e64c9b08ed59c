"""Variants: the SKUs a product sells, each with its own price, stock and options.

A product may hold ``variants: [{sku, options: {<variant attribute code>: value}, pricing}]``
(prices in cents). The rules, kept by ``Product.save`` and ``Product.writes.sync``
(``docs/collections.md``, products):

- a product *without* variants sells its own SKU, as it always did;
- a product *with* variants sells only its variants' SKUs: its own SKU names the page (and
  has no stock record), and its ``pricing`` is that of its cheapest variant (by retail), so
  listings, price sorts, price filters and deals read one price per product;
- ``skus`` holds the product's SKU and every variant SKU: the ``skus`` index (multikey,
  unique while the collection is unsharded) finds the product of any SKU with one equality
  and refuses a SKU used twice across products and variants;
- each sellable SKU has its own inventory document (the "Inventory Management" use case's
  reservations, expiry and invariant, per SKU, unchanged).

Functions here touch no database.
"""

from catalog.products.attributes import clean_variant_options  # noqa: F401  (the admin's variants check options with it)


def _get(item, name, default=None):
    """``item[name]`` of a document, or ``item.name`` of a model instance."""
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)


def variant_skus(variants):
    """The SKUs of ``variants`` (documents or ``Variant`` instances), in order."""
    return [_get(v, "sku") for v in variants or ()]


def all_skus(sku, variants):
    """The ``skus`` field of a product: its own ``sku`` then its variants' SKUs."""
    return [sku, *variant_skus(variants)]


def sellable_skus(sku, variants):
    """The SKUs a product sells: its variants' when it has any, else its own."""
    return variant_skus(variants) if variants else [sku]


def repeated(skus):
    """The SKUs that appear more than once in ``skus`` (a sorted list; [] when none)."""
    seen, twice = set(), set()
    for sku in skus:
        (twice if sku in seen else seen).add(sku)
    return sorted(twice)


def cheapest(variants):
    """The variant of ``variants`` with the lowest retail price (the first of equals), or None."""
    priced = [v for v in variants or () if _get(v, "pricing") is not None]
    if not priced:
        return None
    return min(priced, key=lambda v: _get(_get(v, "pricing"), "retail"))


def options_label(options):
    """A variant's options as shoppers read them: the values in order, ``", "`` between
    (``{"format": "Vinyl"}`` -> ``"Vinyl"``); ``""`` for none."""
    return ", ".join(str(value) for value in (options or {}).values() if value not in (None, ""))


def line_title(title, options):
    """The title a cart line, an order line and a sale show for a variant: the product's
    title and its options (``"Let There Be Rock — Vinyl"``); the title alone without options."""
    label = options_label(options)
    return f"{title} — {label}" if label else title


def apply_to_document(document):
    """Set the derived fields of a product ``document`` (a dict as stored): ``skus``, and for
    a product with variants its ``pricing`` from the cheapest variant. Returns ``document``."""
    variants = document.get("variants") or []
    document["skus"] = all_skus(document.get("sku"), variants)
    low = cheapest(variants)
    if low is not None:
        document["pricing"] = dict(low["pricing"])
    return document


def variant_key(category_id, code, value):
    """One entry of a product's ``variant_in``: ``"<category id>:<code>:<value>"`` (``code`` a
    variant attribute's, an identifier; ``value`` any string after the second colon)."""
    return f"{category_id}:{code}:{value}"


def variant_in(listed_in, variants):
    """A product's ``variant_in``: ``variant_key`` of each category of ``listed_in`` (its
    categories and their ancestors) with each string value of its ``variants``' options
    (documents or ``Variant`` instances), sorted, once each; ``[]`` without variants. One array
    that pairs the two arrays a category page narrowed by a variant attribute (``?format=Vinyl``)
    filters on, so that one index (``variant_in_issue_date``) serves it: MongoDB cannot index
    two arrays of a document together (``listed_in`` and ``variants.options.<code>``)."""
    values = {(code, value) for v in variants or () for code, value in (dict(_get(v, "options") or {})).items()
              if isinstance(value, str)}
    return sorted({variant_key(c, code, value) for c in listed_in or () for code, value in values})


def apply_to_product(product):
    """``apply_to_document`` for a ``Product`` instance (before it is saved)."""
    product.skus = all_skus(product.sku, product.variants)
    low = cheapest(product.variants)
    if low is not None:
        # The embedded model by the field (catalog.models imports this module).
        pricing = product._meta.get_field("pricing").embedded_model
        product.pricing = pricing(list=low.pricing.list, retail=low.pricing.retail,
                                  savings=low.pricing.savings, pct_savings=low.pricing.pct_savings)
    return product


def chosen_variant(variants, wanted=None):
    """The SKU the product page's form has chosen among ``variants`` (``Variant`` instances read
    with their ``available`` units): ``wanted`` (``?variant=``) when it is one of them and in
    stock, else the first in stock; None when none is (or there are no variants)."""
    in_stock = [v.sku for v in variants or () if (getattr(v, "available", None) or 0) > 0]
    if wanted in in_stock:
        return wanted
    return in_stock[0] if in_stock else None


def keep_images(variants, stored):
    """Give each of ``variants`` (documents about to be written) without an ``image`` the image
    of the variant of the same SKU among ``stored`` (the stored document's variants), so that a
    reload of the catalog keeps the pictures staff gave variants. Returns ``variants``."""
    images = {v.get("sku"): v.get("image") for v in stored or () if v.get("image")}
    for variant in variants or ():
        if not variant.get("image") and variant.get("sku") in images:
            variant["image"] = images[variant["sku"]]
    return variants


def chosen_cover(variants, chosen_sku):
    """The SKU of the chosen variant (``chosen_sku``, of ``chosen_variant``) when it has its own
    image (``Variant.image``), whose picture the product page then shows as its cover; ""
    otherwise (the product's cover)."""
    variant = next((v for v in variants or () if _get(v, "sku") == chosen_sku), None)
    return chosen_sku if variant is not None and _get(variant, "image") else ""


def variant_url(product, sku):
    """The product page of ``product`` with the variant ``sku`` chosen (``?variant=``)."""
    from urllib.parse import urlencode

    return f"{product.get_absolute_url()}?{urlencode({'variant': sku})}"
