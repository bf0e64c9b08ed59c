"""Orders to CSV for the accountants: one row per order placed within a period.

Columns (``ORDER_COLUMNS``): the order number, the date placed (UTC, ISO
8601), the customer's e-mail, the lines (``SKU x qty @ price`` separated by
``; ``), subtotal, shipping, tax and total in dollars with two decimals, the
amount refunded, the status, the PaymentIntent id and the refunds (``refund
id amount date status`` separated by ``; ``); then the discounts (issue 43): the order's
``discount`` in dollars, the ``codes`` typed and the offers applied (``CODE name amount``, an
offer without a code as ``name amount``, separated by ``; ``), each line's share of the
discount (``line_discounts``: ``SKU amount`` per line with one, separated by ``; ``) and what
gift cards paid (``gift_card``, dollars). Streamed from
``Order.objects.placed_between``.
"""

import datetime

from core import csvcells, money

from .models import Order

ORDER_COLUMNS = ["number", "placed_at", "email", "lines", "subtotal", "shipping", "tax", "total",
                 "refunded", "status", "payment_intent", "refunds",
                 "discount", "codes", "line_discounts", "gift_card"]


def _text(value):
    """A shopper's text for a cell: one a spreadsheet would run as a formula gets a ``'`` first
    (``core.csvcells.escape``)."""
    return csvcells.escape(str(value or ""))


def _dollars(cents):
    return str(money.dollars(int(cents or 0)))


def _utc(moment):
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def order_row(document):
    """The CSV row (``{column: text}``) of one order document."""
    lines = "; ".join(f"{line['sku']} x {line['qty']} @ {_dollars(line['price'])}" for line in document.get("lines") or [])
    refunds = "; ".join(
        " ".join(p for p in (r.get("refund_id") or r.get("request", ""), _dollars(r.get("amount")),
                             _utc(r.get("at")), r.get("status", "")) if p)
        for r in document.get("refunds") or [])
    return {
        "number": document["number"], "placed_at": _utc(document.get("placed_at")), "email": _text(document.get("email")),
        "lines": lines, **{k: _dollars(document.get(k)) for k in ("subtotal", "shipping", "tax", "total", "refunded")},
        "status": document.get("status", ""), "payment_intent": (document.get("payment") or {}).get("reference", ""),
        "refunds": refunds, **discount_cells(document),
    }


def discount_cells(document):
    """The discount columns (``{column: text}``) of one order document: ``discount`` and
    ``gift_card`` in dollars, ``codes`` (each discount as applied) and ``line_discounts``."""
    codes = "; ".join(" ".join(p for p in (d.get("code", ""), _text(d.get("name")), _dollars(d.get("amount"))) if p)
                      for d in document.get("discounts") or [])
    shares = "; ".join(f"{line['sku']} {_dollars(line['discount'])}" for line in document.get("lines") or []
                       if line.get("discount"))
    return {"discount": _dollars(document.get("discount")), "codes": codes, "line_discounts": shares,
            "gift_card": _dollars(document.get("gift_card"))}


def write_orders(out, since=None, until=None, numbers=None):
    """Write the CSV of the orders placed from ``since`` (included) to ``until`` (excluded),
    aware datetimes or None for no bound, or of the order ``numbers`` (a list), oldest first,
    to the text stream ``out``. Returns the number of orders written."""
    writer = csvcells.DictWriter(out, fieldnames=ORDER_COLUMNS)
    writer.writeheader()
    count = 0
    documents = Order.objects.by_numbers(numbers) if numbers is not None else Order.objects.placed_between(since, until)
    for document in documents:
        writer.writerow(order_row(document))
        count += 1
    return count
