"""The product types an import validates against: the shared contract's names, in one place.

``by_name(name) -> product type | None``, ``clean_details(product_type, details)`` and
``clean_variant_options(product_type, options)`` (``django.core.exceptions.ValidationError``
with ``{code: [messages]}`` for a bad value). They come from ``ProductType.objects`` and
``catalog.products.attributes`` (the admin's validation).
"""

from catalog.products.attributes import attr, clean_details, clean_variant_options  # noqa: F401
from catalog.models import ProductType


def by_name(name):
    """``ProductType.objects.by_name(name)``: the type called ``name``, or None."""
    return ProductType.objects.by_name(name)


def all_types():
    """Every product type."""
    return list(ProductType.objects.all())


def attribute_column(attribute):
    """The column of ``attribute`` in an import or export file: ``details.<code>``."""
    return f"details.{attr(attribute, 'code')}"
