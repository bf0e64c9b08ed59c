"""PLACEHOLDER until the product-types work is merged: delete this module then.

The shared contract names ``ProductType.objects.by_name(name)``,
``product_type.attributes`` / ``product_type.variant_attributes`` and
``catalog.attributes.clean_details`` / ``clean_variant_options``; they do not
exist on this branch yet. ``catalog/imports/types.py`` imports them from their
real home when it exists and falls back to this module, which describes the
three demo types (Audio Album, Film, TV Season) as the contract's attribute
lists and validates ``details`` against them. At the merge: delete this file
and the fallback in ``catalog/imports/types.py``.

One shape here is the current model's, not the contract's: the stored
``details`` of the demo types carry ``_label`` (the polymorphic embedded
field's class label), which ``clean_details`` adds so that the ORM can still
read what an import writes. The exports leave out keys starting with ``_``.
"""

import datetime
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError


def _attr(code, kind, *, label=None, required=False, many=False, fields=(), unit="", variant=False):
    return {"code": code, "label": label or code.replace("_", " ").capitalize(), "kind": kind,
            "unit": unit, "choices": [], "required": required, "facet": False, "variant": variant,
            "many": many, "fields": list(fields)}


_TRACK_FIELDS = [
    _attr("number", "number", required=True), _attr("title", "text", required=True),
    _attr("composer", "text"), _attr("duration", "number", unit="ms", required=True),
    _attr("price", "number", unit="cents", required=True),
]


@dataclass
class PlaceholderType:
    """A product type as the contract describes it: ``name`` and ``attributes`` in display order."""

    name: str
    attributes: list = field(default_factory=list)
    label: str = ""

    @property
    def variant_attributes(self):
        """The attributes with ``variant`` True."""
        return [a for a in self.attributes if a.get("variant")]


TYPES = {
    "Audio Album": PlaceholderType("Audio Album", [
        _attr("artist", "text", required=True), _attr("genre", "text", many=True),
        _attr("issue_date", "date"), _attr("tracks", "records", fields=_TRACK_FIELDS),
        _attr("format", "choice", variant=True),
    ], "catalog.AlbumDetails"),
    "Film": PlaceholderType("Film", [
        _attr("director", "text", many=True), _attr("writer", "text", many=True),
        _attr("actor", "text", many=True), _attr("genre", "text", many=True),
        _attr("rating", "text"), _attr("aspect_ratio", "text"), _attr("issue_date", "date"),
    ], "catalog.FilmDetails"),
    "TV Season": PlaceholderType("TV Season", [
        _attr("artist", "text", required=True), _attr("genre", "text", many=True),
        _attr("issue_date", "date"), _attr("tracks", "records", fields=_TRACK_FIELDS),
    ], "catalog.SeasonDetails"),
}


def by_name(name):
    """The placeholder type called ``name``, or None."""
    return TYPES.get(str(name))


def all_types():
    """Every placeholder type, by name."""
    return list(TYPES.values())


def _clean_value(attribute, value):
    kind, many = attribute["kind"], attribute.get("many")
    if kind == "text" and many:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("a list of texts")
        return [v.strip() for v in value if v.strip()]
    if kind in ("text", "choice"):
        if not isinstance(value, str):
            raise ValueError("a text")
        return value.strip()
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("a number")
        return value
    if kind == "date":
        if not isinstance(value, datetime.datetime):
            raise ValueError("a date")
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError("yes or no")
        return value
    if kind == "records":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise ValueError("a list of records")
        return [_clean(attribute["fields"], record, nested=True) for record in value]
    raise ValueError(f"an attribute of unknown kind {kind}")


def _clean(attributes, details, nested=False):
    by_code = {a["code"]: a for a in attributes}
    errors, cleaned = {}, {}
    for code in details:
        if code not in by_code:
            errors[code] = ["Unknown attribute."]
    for attribute in attributes:
        code = attribute["code"]
        value = details.get(code)
        if value in (None, "", []):
            if nested and attribute["kind"] == "text" and not attribute.get("many") and code in details:
                cleaned[code] = ""  # a record keeps its empty texts (a track without composer)
                continue
            if attribute["required"]:
                errors[code] = ["This attribute is required."]
            continue
        try:
            cleaned[code] = _clean_value(attribute, value)
        except ValueError as error:
            errors[code] = [f"Expected {error}."]
        except ValidationError as error:
            errors[code] = [f"{k}: {'; '.join(v)}" for k, v in error.message_dict.items()]
    if errors:
        raise ValidationError(errors)
    return cleaned


def clean_details(product_type, details):
    """``details`` checked against ``product_type``'s attributes; see the module docstring."""
    cleaned = _clean([a for a in product_type.attributes if not a.get("variant")], dict(details))
    if product_type.label:
        cleaned["_label"] = product_type.label
    return cleaned


def clean_variant_options(product_type, options):
    """``options`` checked against ``product_type``'s variant attributes."""
    return _clean(product_type.variant_attributes, dict(options))
