"""The kinds of a product type's attributes, and the validation of a product's ``details``.

A product type (``ProductType``, collection ``product_types``) lists its
attributes, each ``{code, label, kind, unit, choices, required, facet,
variant, many, fields}``; a product stores its values in its ``details``
subdocument under those codes ("Product Catalog" use case: one document per
product whose ``details`` hold whatever its type has, with no join).

Kinds and the values they store (after ``clean_details``):

* ``text``: a string; with ``many`` a list of strings (a film's actors);
* ``number``: an int, or a float when not whole (``unit`` says what it counts: "g", "min");
* ``choice``: one of ``choices`` (a string);
* ``multichoice``: a list of ``choices``;
* ``date``: a timezone-aware datetime in UTC (BSON date);
* ``boolean``: True or False ("yes"/"no", "true"/"false", "on"/"off", 1/0 are accepted);
* ``records``: a list of subdocuments, each cleaned by the attribute's ``fields``
  (an album's tracks: ``{number, title, composer, duration, price}``).

Every write of a product goes through ``clean_details`` (``Product.save``,
``Product.writes.sync``), so no write path stores a value of the wrong kind,
leaves out a required value or adds an attribute its type does not have.
"""

import datetime
import decimal
import math

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.dateparse import parse_date, parse_datetime

#: The kinds of attribute, in the order the admin offers them.
KINDS = ("text", "number", "choice", "multichoice", "date", "boolean", "records")
KIND_LABELS = {"text": "text", "number": "number", "choice": "choice", "multichoice": "multiple choice",
               "date": "date", "boolean": "yes/no", "records": "list of records"}

#: The kinds as model choices; a records' field has every kind but ``records``.
KIND_CHOICES = [(kind, KIND_LABELS[kind]) for kind in KINDS]
FIELD_KIND_CHOICES = [(kind, label) for kind, label in KIND_CHOICES if kind != "records"]

#: An attribute's code: a key of ``details`` (lower-case letters, digits, underscores).
validate_code = RegexValidator(
    r"^[a-z][a-z0-9_]{0,63}\Z",
    "Use lower-case letters, digits and underscores, starting with a letter (e.g. issue_date).",
)

#: Strings ``boolean`` accepts, lower-cased.
TRUE_WORDS = frozenset({"yes", "true", "on", "1", "y"})
FALSE_WORDS = frozenset({"no", "false", "off", "0", "n"})

#: The largest absolute number stored (MongoDB's 64-bit integers; floats beyond are refused too).
MAX_NUMBER = 2**63 - 1


def attr(attribute, name, default=None):
    """The property ``name`` of ``attribute`` (an ``Attribute`` or a plain dict)."""
    if isinstance(attribute, dict):
        return attribute.get(name, default)
    return getattr(attribute, name, default)


def is_empty(value):
    """True for a missing value: None, ``""`` or an empty list."""
    return value is None or value == "" or value == [] or value == ()


def _text(value):
    if not isinstance(value, str):
        raise ValueError("Enter text.")
    return value


def _number(value):
    if isinstance(value, bool):
        raise ValueError("Enter a number.")
    if isinstance(value, str):
        try:
            value = decimal.Decimal(value.strip())
        except decimal.InvalidOperation:
            raise ValueError("Enter a number.") from None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError("Enter a number.")
        value = int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            raise ValueError("The number is too large.")
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise ValueError("Enter a number.")
        return int(value) if value.is_integer() else value
    raise ValueError("Enter a number.")


def _date(value):
    if isinstance(value, str):
        text = value.strip()
        parsed = parse_datetime(text)
        if parsed is None:
            day = parse_date(text)
            if day is None:
                raise ValueError("Enter a date, e.g. 2021-03-04.")
            parsed = datetime.datetime(day.year, day.month, day.day)
        value = parsed
    elif isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        value = datetime.datetime(value.year, value.month, value.day)
    if not isinstance(value, datetime.datetime):
        raise ValueError("Enter a date, e.g. 2021-03-04.")
    if value.tzinfo is None:
        return value.replace(tzinfo=datetime.UTC)  # naive values are UTC (as pymongo reads them)
    return value.astimezone(datetime.UTC)


def _boolean(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise ValueError("Enter yes or no.")


def _choice(attribute, value):
    choices = list(attr(attribute, "choices") or [])
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{value!r} is not one of the choices: {', '.join(choices)}.")
    return value


def _list(value):
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise ValueError("Enter a list.")
    return list(value)


def _records(attribute, value):
    if not isinstance(value, (list, tuple)):
        raise ValueError("Enter a list of records.")
    fields = list(attr(attribute, "fields") or [])
    records = []
    for number, record in enumerate(value, start=1):
        if not isinstance(record, dict):
            raise ValueError(f"Record {number}: not a record.")
        try:
            records.append(_clean(fields, record))
        except ValidationError as error:
            code, messages = next(iter(error.message_dict.items()))
            raise ValueError(f"Record {number}, {code}: {messages[0]}") from None
    return records


def clean_value(attribute, value):
    """``value`` normalised for ``attribute`` (see the module's list of kinds).

    Raises ValueError with a message for staff when the value is not of the
    attribute's kind. An empty value (None, ``""``, ``[]``) is returned as is.
    """
    if is_empty(value):
        return value
    kind = attr(attribute, "kind")
    if kind == "text":
        if attr(attribute, "many"):
            return [_text(v) for v in _list(value)]
        return _text(value)
    if kind == "number":
        return _number(value)
    if kind == "choice":
        return _choice(attribute, value)
    if kind == "multichoice":
        return [_choice(attribute, v) for v in _list(value)]
    if kind == "date":
        return _date(value)
    if kind == "boolean":
        return _boolean(value)
    if kind == "records":
        return _records(attribute, value)
    raise ValueError(f"Unknown kind of attribute: {kind!r}.")


def _clean(attributes, values, unknown="an attribute"):
    """``values`` (a dict) cleaned by ``attributes``; raises ValidationError({code: [message]}),
    a code not among ``attributes`` being "not <unknown> of this product type"."""
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ValidationError({"details": ["The details must be a subdocument of attribute values."]})
    known = {attr(a, "code"): a for a in attributes}
    errors, cleaned = {}, {}
    for code in values:
        if code not in known:
            errors[str(code)] = [f"{code!r} is not {unknown} of this product type."]
    for code, attribute in known.items():
        value = values.get(code)
        if is_empty(value):
            if attr(attribute, "required"):
                errors[code] = ["This value is required."]
            elif code in values and value is not None:
                cleaned[code] = value  # an empty string or list is kept as stored
            continue
        try:
            cleaned[code] = clean_value(attribute, value)
        except ValueError as error:
            errors[code] = [str(error)]
    if errors:
        raise ValidationError(errors)
    return cleaned


def clean_details(product_type, details):
    """A product's ``details`` (a dict ``{code: value}``) checked against ``product_type``
    (a ``ProductType``) and normalised: numbers as int or float, dates as UTC datetimes,
    yes/no as bool, records each cleaned by their fields; a None value is left out.

    Returns a new dict in the type's attribute order. Raises
    ``django.core.exceptions.ValidationError`` with ``{code: [messages]}`` for
    a value of the wrong kind, a missing required value or an unknown attribute
    code (every problem at once).
    """
    return _clean(list(product_type.attributes or []), details)


def clean_variant_options(product_type, options):
    """A variant's ``options`` (``{code: value}``) checked against the variant attributes of
    ``product_type`` (``variant=True``) and normalised as ``clean_details`` does.

    Returns a new dict. Raises ValidationError ``{code: [messages]}`` for a
    value of the wrong kind, a missing required variant attribute or a code
    that is not a variant attribute of the type.
    """
    return _clean(product_type.variant_attributes, options, unknown="a variant attribute")


def first_facet_attributes(types):
    """The facet attributes of ``types`` (``{name: ProductType}``, built), deduplicated by code
    (the first type's wins), in display order (the types' in name order, each type's
    attributes in its order): a list of ``Attribute``."""
    seen, found = set(), []
    for _name, product_type in sorted(types.items()):
        for attribute in product_type.facet_attributes:
            if attribute.code not in seen:
                seen.add(attribute.code)
                found.append(attribute)
    return found
