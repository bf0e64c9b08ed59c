"""Reading an import file as a stream of rows: CSV (Python's ``csv``) or JSON Lines.

``rows(path, file_format)`` yields ``Row``s one at a time (never the whole
file): the line number where the row starts (the header is line 1 of a CSV)
and ``{column: cell}``. A column other than the base columns
(``cells.BASE_COLUMNS``) is an attribute of the type: ``details.<code>`` or
the bare code.
"""

import csv
import json
from dataclasses import dataclass

from core import csvcells

from catalog.transfer.imports.cells import BASE_COLUMNS

FORMATS = ("csv", "jsonl")


class FileError(ValueError):
    """A file that cannot be imported at all (unreadable, no ``sku`` column...): ``str(error)`` says why."""


@dataclass
class Row:
    """One row of the file: ``line`` (1-based, where it starts), ``cells`` ``{column: value}``
    (columns normalised: ``details.<code>`` for attributes), ``error`` a reason when the line
    itself cannot be read (invalid JSON)."""

    line: int
    cells: dict
    error: str = ""


def guess_format(name):
    """``"jsonl"`` for a name ending in ``.jsonl``/``.ndjson``/``.json``, else ``"csv"``."""
    return "jsonl" if str(name).lower().endswith((".jsonl", ".ndjson", ".json")) else "csv"


def column_name(name):
    """The normalised column name: a base column as it is, anything else as ``details.<code>``."""
    name = str(name).strip()
    if name in BASE_COLUMNS or name.startswith("details."):
        return name
    return f"details.{name}"


def rows(path, file_format=None):
    """Yield the ``Row``s of the file at ``path`` (``file_format``: ``"csv"``, ``"jsonl"`` or
    None to guess from the name). Raises ``FileError`` for an unreadable file or a CSV
    without a ``sku`` column."""
    file_format = file_format or guess_format(path)
    if file_format not in FORMATS:
        raise FileError(f"unknown format {file_format!r} (csv or jsonl)")
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
    except OSError as error:
        raise FileError(f"cannot read {path}: {error.strerror}") from None
    with handle:
        try:
            yield from (_csv_rows(handle) if file_format == "csv" else _jsonl_rows(handle))
        except UnicodeDecodeError:
            raise FileError(f"{path} is not UTF-8 text") from None
        except csv.Error as error:
            raise FileError(f"{path} is not a readable CSV file ({error})") from None


def _csv_rows(handle):
    reader = csv.reader(handle)
    header = next(reader, None)
    if header is None:
        raise FileError("the file is empty")
    columns = [column_name(c) for c in header]
    if "sku" not in columns:
        raise FileError("the file has no 'sku' column")
    if len(set(columns)) != len(columns):
        raise FileError("a column appears twice in the header")
    start = reader.line_num + 1
    for values in reader:
        if any(v.strip() for v in values):
            values = [csvcells.unescape(v) for v in values]  # as export_products escaped them
            yield Row(start, dict(zip(columns, values)) if len(values) <= len(columns)
                      else {}, "" if len(values) <= len(columns) else "more cells than columns")
        start = reader.line_num + 1


def _jsonl_rows(handle):
    for number, text in enumerate(handle, start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except ValueError as error:
            yield Row(number, {}, f"not a JSON object ({error.msg})")
            continue
        if not isinstance(value, dict):
            yield Row(number, {}, "not a JSON object")
            continue
        yield Row(number, {column_name(k): v for k, v in value.items()})

