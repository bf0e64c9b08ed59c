"""The admin's form field for each kind of attribute, and the ``details`` read back from them.

A product's form has one field per attribute of its type, named
``details_<code>`` (``field_name``):

* text: a text input; with ``many``, a textarea, one value per line;
* number: a number input (the unit in the label);
* choice: a select; multiple choice: checkboxes;
* date: a date and time (``2024-03-01`` or ``2024-03-01 10:00``, UTC);
* yes/no: a select of unknown / yes / no;
* records: a textarea, one record per line, its fields' values in the
  order of the fields separated by ``|`` (e.g. an album's tracks:
  ``1 | Intro | Ann Writer | 61000 | 99``); a field with several values
  separates them with ``;``.

The values read back go through ``clean_details``, which checks the kinds.
"""

import datetime

from django import forms

from catalog.products.attributes import attr

#: Between the values of a record's line, and between the values of a field of many values.
RECORD_SEPARATOR = "|"
MANY_SEPARATOR = ";"


def field_name(attribute):
    """The form field name of ``attribute``: ``details_<code>``."""
    return f"details_{attr(attribute, 'code')}"


def _label(attribute):
    label = attr(attribute, "label") or attr(attribute, "code")
    unit = attr(attribute, "unit")
    return f"{label} ({unit})" if unit and attr(attribute, "kind") == "number" else label


def records_help(attribute):
    """The format of a records attribute's lines: ``number | title | ...`` with units."""
    cells = []
    for field in attr(attribute, "fields") or []:
        unit = attr(field, "unit")
        cells.append(f"{attr(field, 'code')}{f' ({unit})' if unit else ''}")
    return (f"One record per line: {f' {RECORD_SEPARATOR} '.join(cells)}. "
            f"Several values in one field are separated by '{MANY_SEPARATOR}'.")


def form_field(attribute):
    """A new form field for ``attribute`` (never required: ``clean_details`` says what is missing)."""
    kind = attr(attribute, "kind")
    options = {"label": _label(attribute), "required": False}
    if attr(attribute, "required"):
        options["help_text"] = "Required."
    if kind == "text" and attr(attribute, "many"):
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), help_text="One per line.", **{
            k: v for k, v in options.items() if k != "help_text"})
    if kind == "text":
        return forms.CharField(max_length=1000, **options)
    if kind == "number":
        return forms.DecimalField(**options)
    if kind == "choice":
        choices = [("", "---------"), *((c, c) for c in attr(attribute, "choices") or [])]
        return forms.ChoiceField(choices=choices, **options)
    if kind == "multichoice":
        return forms.MultipleChoiceField(choices=[(c, c) for c in attr(attribute, "choices") or []],
                                         widget=forms.CheckboxSelectMultiple, **options)
    if kind == "date":
        return forms.DateTimeField(**options)
    if kind == "boolean":
        return forms.NullBooleanField(**options)
    if kind == "records":
        options["help_text"] = records_help(attribute)
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 8, "cols": 80}), **options)
    raise ValueError(f"Unknown kind of attribute: {kind!r}")


def _cell(field, value):
    if isinstance(value, list):
        return f"{MANY_SEPARATOR} ".join(map(str, value))
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def initial_value(attribute, value):
    """What the form field of ``attribute`` shows for the stored ``value``."""
    kind = attr(attribute, "kind")
    if kind == "text" and attr(attribute, "many"):
        return "\n".join(map(str, value)) if isinstance(value, list) else value
    if kind == "records" and isinstance(value, list):
        fields = attr(attribute, "fields") or []
        return "\n".join(
            f" {RECORD_SEPARATOR} ".join(_cell(f, (r or {}).get(attr(f, "code"))) for f in fields)
            for r in value
        )
    return value


def _parse_records(attribute, text):
    fields = list(attr(attribute, "fields") or [])
    records = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(RECORD_SEPARATOR)]
        if len(cells) > len(fields):
            raise ValueError(f"Line {number} has {len(cells)} values; a record has {len(fields)} "
                             f"({', '.join(attr(f, 'code') for f in fields)}).")
        record = {}
        for field, cell in zip(fields, cells):
            if cell == "":
                if attr(field, "kind") == "text" and not attr(field, "many"):
                    record[attr(field, "code")] = ""  # an empty text is stored as "" (a track's composer)
                continue
            if attr(field, "many") or attr(field, "kind") == "multichoice":
                record[attr(field, "code")] = [v.strip() for v in cell.split(MANY_SEPARATOR) if v.strip()]
            else:
                record[attr(field, "code")] = cell
        records.append(record)
    return records


def details_from_form(attributes, cleaned_data):
    """``(details, problems)`` from a form's ``cleaned_data``: ``details`` ``{code: value}``
    (a field left empty is left out) before ``clean_details``; ``problems`` ``{code: message}``
    for the records lines that cannot be read."""
    details, problems = {}, {}
    for attribute in attributes:
        name = field_name(attribute)
        if name not in cleaned_data:
            continue
        value = cleaned_data[name]
        kind, code = attr(attribute, "kind"), attr(attribute, "code")
        if kind == "text" and attr(attribute, "many") and value:
            value = [line.strip() for line in value.splitlines() if line.strip()]
        elif kind == "records" and value:
            try:
                value = _parse_records(attribute, value)
            except ValueError as error:
                problems[code] = str(error)
                continue
        if value is None or value == "" or value == []:
            continue
        details[code] = value
    return details, problems
