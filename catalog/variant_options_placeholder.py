"""PLACEHOLDER until the product types are data (the types branch's ``catalog/attributes.py``
and ``ProductType``): the variant attributes of the three Chinook types, and the validation of
a variant's options against them, with the contract's names and errors.

``catalog/variants.py`` imports ``catalog.attributes.clean_variant_options`` and
``ProductType.objects.by_name`` when they exist and falls back to this module otherwise, so
the merge needs no edit beyond deleting this file.
"""

from django.core.exceptions import ValidationError

#: The variant attributes of each type, in the contract's attribute shape.
_VARIANT_ATTRIBUTES = {
    "Audio Album": [{"code": "format", "label": "Format", "kind": "choice", "unit": "",
                     "choices": ["Digital", "CD", "Vinyl"], "required": True, "facet": True,
                     "variant": True, "fields": []}],
    "Film": [],
    "TV Season": [],
}


class PlaceholderType:
    """A product type's name and ``variant_attributes`` (a list of attribute dicts)."""

    def __init__(self, name):
        self.name = name
        self.variant_attributes = list(_VARIANT_ATTRIBUTES.get(name, []))


def by_name(name):
    """The type called ``name`` (a ``PlaceholderType``), or None for an unknown name."""
    return PlaceholderType(name) if name in _VARIANT_ATTRIBUTES else None


def clean_variant_options(product_type, options):
    """``options`` (``{attribute code: value}``) checked against the variant attributes of
    ``product_type``; returns them normalised (values stripped, in the type's order).

    Raises ``ValidationError({code: [message]})`` for an unknown code, a missing required
    value, or a value outside a choice attribute's choices.
    """
    attributes = {a["code"]: a for a in (product_type.variant_attributes if product_type else [])}
    errors, cleaned = {}, {}
    for code in options:
        if code not in attributes:
            errors[code] = [f"“{code}” is not a variant attribute of this type."]
    for code, attribute in attributes.items():
        value = str(options.get(code) or "").strip()
        if not value:
            if attribute.get("required"):
                errors[code] = [f"{attribute['label']} is required."]
            continue
        if attribute["kind"] == "choice" and value not in attribute["choices"]:
            errors[code] = [f"{attribute['label']} must be one of {', '.join(attribute['choices'])}."]
            continue
        cleaned[code] = value
    if errors:
        raise ValidationError(errors)
    return cleaned
