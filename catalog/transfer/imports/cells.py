"""One cell of an import or export file: text <-> the stored value, for every kind of attribute.

Prices are dollars with at most two decimals (``9.99``) and are stored as
cents; ``|`` separates the values of a list (several categories, a multiple
choice, a text attribute with ``many``); a ``records`` attribute (an album's
tracks) is a JSON list of objects; a date is ``YYYY-MM-DD`` (midnight UTC) or
an ISO 8601 date and time; yes/no is ``yes``/``no`` (also ``true``/``false``,
``1``/``0``). In a JSON Lines file a cell may also hold the JSON value itself
(a number, a list, ``true``).
"""

import datetime
import json
from decimal import Decimal, InvalidOperation

from catalog.products.attributes import attr

SEPARATOR = "|"

#: The columns every row may have, in the order an export writes them. The attributes of
#: the type follow as ``details.<code>``.
BASE_COLUMNS = ["sku", "type", "variant_of", "title", "description", "categories",
                "list_price", "price", "stock", "images"]


class CellError(ValueError):
    """A cell that cannot be read: ``str(error)`` says why."""


def cents(text, column="price"):
    """Dollars (``"9.99"``, ``9.99``, ``"10"``) as integer cents. Raises ``CellError`` for a
    value that is not an amount, a negative one or one with more than two decimals."""
    try:
        amount = Decimal(str(text).strip().lstrip("$"))
    except InvalidOperation:
        raise CellError(f"{text!r} is not an amount in dollars (e.g. 9.99)") from None
    if not amount.is_finite():
        raise CellError(f"{text!r} is not an amount in dollars (e.g. 9.99)")
    if amount < 0:
        raise CellError(f"a {column} cannot be negative")
    if amount != amount.quantize(Decimal("0.01")):
        raise CellError(f"{text!r} has more than two decimals")
    return int(amount * 100)


def dollars(amount_cents):
    """Integer cents as the text a file holds: 999 -> ``"9.99"``."""
    return f"{amount_cents // 100}.{amount_cents % 100:02d}"


def count(text, column="stock"):
    """A whole number of units >= 0 from ``text`` (str or int). Raises ``CellError``."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise CellError(f"{text!r} is not a whole number of units") from None
    if value < 0:
        raise CellError(f"a {column} cannot be negative")
    return value


def split(value):
    """A ``|``-separated cell (or a JSON list) as a list of stripped, non-empty texts."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value).split(SEPARATOR) if part.strip()]


def _date(text):
    text = str(text).strip()
    try:
        if len(text) == 10:
            return datetime.datetime.fromisoformat(text)
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise CellError(f"{text!r} is not a date (YYYY-MM-DD)") from None
    if moment.tzinfo is not None:  # stored as naive UTC, as pymongo reads dates back
        moment = moment.astimezone(datetime.UTC).replace(tzinfo=None)
    return moment


def _number(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise CellError(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise CellError(f"{value!r} is not a number")
    return int(number) if number == number.to_integral_value() else float(number)


_TRUE, _FALSE = {"yes", "true", "1", "y"}, {"no", "false", "0", "n"}


def _boolean(value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise CellError(f"{value!r} is not yes or no")


def _records(value, attribute):
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise CellError(f"not a JSON list of records ({error.msg})") from None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CellError("not a JSON list of records")
    fields = {attr(f, "code"): f for f in attr(attribute, "fields") or []}
    records = []
    for record in value:
        row = {}
        for code, cell in record.items():
            spec = fields.get(code)
            keep = spec is None or isinstance(cell, (list, dict)) or (attr(spec, "kind") == "text" and isinstance(cell, str))
            row[code] = cell if keep else decode(spec, cell)
        records.append(row)
    return records


def decode(attribute, value):
    """The value of ``attribute`` (the contract's attribute dict) that the cell ``value`` holds
    (text, or a JSON value from a JSON Lines file); None for an empty cell. Raises ``CellError``."""
    if value is None or value == "" or value == []:
        return None
    kind = attr(attribute, "kind")
    if kind == "multichoice" or (kind == "text" and attr(attribute, "many")):
        return split(value) or None
    if kind == "records":
        return _records(value, attribute)
    if kind == "number":
        return _number(value)
    if kind == "date":
        return value if isinstance(value, datetime.datetime) else _date(value)
    if kind == "boolean":
        return _boolean(value)
    return str(value).strip() or None


def encode(attribute, value):
    """The text of the cell holding ``value`` of ``attribute``: what ``decode`` reads back."""
    if value is None or value == [] or value == "":
        return ""
    kind = attr(attribute, "kind")
    if kind == "records":
        return json.dumps([{k: v for k, v in r.items() if not k.startswith("_")} for r in value],
                          ensure_ascii=False, default=str)
    if isinstance(value, list):
        return SEPARATOR.join(str(v) for v in value)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat()
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
