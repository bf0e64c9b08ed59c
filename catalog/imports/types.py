"""The product types an import validates against: the shared contract's names, in one place.

``by_name(name) -> product type | None``, ``clean_details(product_type, details)`` and
``clean_variant_options(product_type, options)`` (``django.core.exceptions.ValidationError``
with ``{code: [messages]}`` for a bad value). They come from ``ProductType.objects`` and
``catalog.attributes`` (the admin's validation) when those exist, and from
``types_placeholder`` until then (delete the fallback at the merge).
"""

try:  # the product types' own home (contract): the admin validates with the same functions
    from catalog.attributes import clean_details, clean_variant_options
    from catalog.models import ProductType

    def by_name(name):
        """``ProductType.objects.by_name(name)``: the type called ``name``, or None."""
        return ProductType.objects.by_name(name)

    def all_types():
        """Every product type."""
        return list(ProductType.objects.all())
except ImportError:  # PLACEHOLDER until the product types are merged
    from .types_placeholder import (  # noqa: F401
        all_types,
        by_name,
        clean_details,
        clean_variant_options,
    )


def attribute_column(attribute):
    """The column of ``attribute`` in an import or export file: ``details.<code>``."""
    return f"details.{attribute['code']}"
