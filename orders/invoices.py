"""Invoices and credit notes: every paid order gets an invoice, every refund a credit note.

Each is a snapshot (``Invoice``, in ``invoices``), written once and never recomputed: the
shop's legal details from settings (``SHOP_LEGAL_NAME``, ``SHOP_LEGAL_ADDRESS``,
``SHOP_VAT_NUMBER``, ``SHOP_LEGAL_DETAILS``), the buyer (name, e-mail, address, VAT number),
the lines as charged (the order's stored shares: discount, tax and rate per line), shipping
and its tax, the reverse charge, the totals. A later edit of a tax rate, a price or the
legal details changes no document issued before it.

When:

* the invoice after the payment, never in checkout's critical path: ``order_placed``'s
  receiver (the order-confirmation e-mail, ``emails.send_order_confirmation``) runs after
  the response (``core.afterresponse``), issues the invoice (``issue_invoice``) and attaches
  its PDF;
* a credit note per refund that went through: ``order_refunded``'s receiver
  (``credit_note_after_refund``), after the response too, issues it (``issue_credit_note``:
  the refunded lines and units, or the amount) and e-mails it to the shopper;
* ``issue_missing`` (run by ``reconcile_payments``, by its background thread in every serving
  process, and by ``manage.py issue_invoices``) issues what a crash left out: the invoice
  of a paid order that has none, the credit note of a refund that has none.

The numbers (INV-2026-000123, CN-2026-000004) are gapless per year and never repeat:
``Invoice.objects.issue`` (``managers/invoices.py``) writes the counter, the document and
the order's mark in one transaction, or claims the number by a unique index where the
server has no transactions. The PDF is rendered from ``templates/invoices/document.html``
with WeasyPrint (``render_pdf``).
"""

import datetime
import logging

from django.conf import settings
from django.template.loader import render_to_string

from core import clock
from core.money import share_of_units

from .models import Invoice, Order
from . import pricing
from core.afterresponse import after_response
from .emails import send_credit_note

logger = logging.getLogger(__name__)


# -- the snapshot ---------------------------------------------------------------------


def _seller():
    """The shop's legal details as settings give them now (they are copied into the document)."""
    return {
        "seller_name": settings.SHOP_LEGAL_NAME,
        "seller_address": [str(line) for line in settings.SHOP_LEGAL_ADDRESS if str(line).strip()],
        "seller_vat_number": settings.SHOP_VAT_NUMBER,
        "seller_details": [str(line) for line in settings.SHOP_LEGAL_DETAILS if str(line).strip()],
    }


def _buyer(order):
    """The buyer as the invoice names them: the billing address's name and lines (the
    shipping address's where the order has no billing address of its own), the e-mail and
    the VAT number as checked."""
    billed = order.bill_to
    return {
        "buyer_name": (billed.name if billed is not None and billed.name else order.name), "buyer_email": order.email,
        "buyer_address": billed.lines() if billed is not None else [],
        "buyer_vat_number": order.vat_number or "",
    }


def _common(order, kind, source, moment):
    return {
        "kind": kind, "source": source, "year": moment.year, "issued_at": moment,
        "order_number": order.number, "order_placed_at": order.placed_at,
        **_seller(), **_buyer(order),
        "tax_included": bool(order.tax_included), "tax_name": order.tax_name or "Tax",
        "reverse_charge": bool(order.reverse_charge),
        "shipping_tax_rate": order.shipping_tax_rate or "0", "currency": settings.SHOP_CURRENCY,
    }


def invoice_document(order, moment=None):
    """The raw invoice of ``order`` (an ``Order``) as of ``moment`` (aware UTC; default now),
    without its number: the lines with their stored discount, tax and rate, shipping and its
    tax, the totals, exactly as charged (``Order``'s figures, never recomputed)."""
    moment = moment or clock.now()
    lines = [{"sku": line.sku, "title": line.title, "qty": line.qty, "price": line.price,
              "discount": line.discount or 0, "net": line.net, "tax_rate": line.tax_rate or "0",
              "tax": line.tax or 0, "amount": line.paid} for line in order.lines]
    return {
        **_common(order, Invoice.INVOICE, f"invoice:{order.number}", moment),
        "refund_request": "", "credited_invoice": "", "reason": "", "lines": lines,
        "subtotal": order.subtotal, "discount": order.discount or 0, "shipping": order.shipping,
        "shipping_tax": order.shipping_tax or 0, "tax": order.tax, "total": order.total,
        "gift_card": order.gift_card or 0,
        "shipping_name": getattr(getattr(order, "shipping_method", None), "name", "") or "",
    }


def _refund_entry(order, request):
    """The refund of ``order`` recorded for ``request`` (its form key, or Stripe's refund id for
    a refund made in Stripe's dashboard), and its index in ``order.refunds``; (None, -1)."""
    for index, entry in enumerate(order.refunds or []):
        if entry.request == request or (entry.refund_id and entry.refund_id == request):
            return entry, index
    return None, -1


def credit_note_document(order, request, moment=None):
    """The raw credit note of ``order``'s refund ``request`` (see ``_refund_entry``), without its
    number; None when the order has no such refund that went through.

    A refund of lines carries its lines and units, each at what was paid for them
    (``pricing.refund_of_units`` on the stored shares, after the units the earlier refunds of
    the order took: the same figures the refund charged). A refund of an amount is one line
    "Refund", its tax the order's share of tax in that amount (``amount × tax / total``,
    rounded down; none with the reverse charge), and nothing of it is shipping.
    """

    entry, index = _refund_entry(order, request)
    if entry is None or entry.status != "succeeded":
        return None
    moment = moment or clock.now()
    lines = []
    if entry.lines:
        before = {}
        for earlier in order.refunds[:index]:
            for part in earlier.lines or []:
                before[part.line] = before.get(part.line, 0) + part.qty
        for part in entry.lines:
            line = order.lines[part.line]
            share = pricing.refund_of_units(line, part.qty, before.get(part.line, 0))
            discount = share_of_units(line.discount or 0, line.qty, part.qty, before.get(part.line, 0))
            lines.append({"sku": line.sku, "title": line.title, "qty": part.qty, "price": line.price,
                          "discount": discount, "net": share["net"], "tax_rate": line.tax_rate or "0",
                          "tax": share["tax"], "amount": share["amount"]})
        subtotal = sum(line["qty"] * line["price"] for line in lines)
        discount = sum(line["discount"] for line in lines)
        tax = sum(line["tax"] for line in lines)
    else:
        tax = 0 if order.reverse_charge or not order.total else entry.amount * (order.tax or 0) // order.total
        rate = order.tax_percent or ""
        lines.append({"sku": "", "title": "Refund" + (f": {entry.reason}" if entry.reason else ""), "qty": 1,
                      "price": entry.amount, "discount": 0, "net": entry.amount - tax, "tax_rate": rate,
                      "tax": tax, "amount": entry.amount})
        subtotal, discount = entry.amount, 0
    invoice = order.invoice_number or ""
    return {
        **_common(order, Invoice.CREDIT_NOTE, f"credit:{order.number}:{entry.request}", moment),
        "refund_request": entry.request, "credited_invoice": invoice, "reason": entry.reason or "",
        "lines": lines, "subtotal": subtotal, "discount": discount, "shipping": 0, "shipping_tax": 0,
        "tax": tax, "total": entry.amount, "gift_card": 0,
        # With prices including tax the lines' price holds the tax: the total is the amount.
        "tax_included": bool(order.tax_included),
    }


# -- issuing ------------------------------------------------------------------------


def issue_invoice(order):
    """Issue the invoice of ``order`` (an ``Order``), once: ``(Invoice, issued)``, ``issued``
    False when it had one already (that one is returned). Marks the order's
    ``invoice_number`` in the same transaction. Raises what the database raises."""
    document = invoice_document(order)
    return Invoice.objects.issue(document, lambda number: ({"_id": order.pk},
                                                           {"$set": {"invoice_number": number}}))


def issue_credit_note(order, request):
    """Issue the credit note of ``order``'s refund ``request``, once: ``(Invoice, issued)``, or
    ``(None, False)`` when the order has no refund ``request`` that went through. Marks the
    refund's ``credit_note`` with the number."""
    document = credit_note_document(order, request)
    if document is None:
        return None, False
    request = document["refund_request"]
    return Invoice.objects.issue(document, lambda number: ({"_id": order.pk, "refunds.request": request},
                                                           {"$set": {"refunds.$.credit_note": number}}))


def issue_missing(older_than=None, since_days=None, limit=1000):
    """Issue what a crash left out: the invoice of every order placed more than ``older_than``
    seconds ago (default ``PAYMENT_RECOVERY_AFTER``) that has none, and the credit note of every
    refund that went through in the last ``since_days`` days (default
    ``SHOP_CREDIT_NOTE_RECOVERY_DAYS``) and has none; at most ``limit`` of each per run.

    Returns ``{"invoices": n, "credit_notes": n}`` (documents issued now; one already there
    counts 0). Safe to run twice or concurrently (one document per ``source``). Reads:
    the orders without an invoice (an index on ``invoice_number``) and the recent refunds
    (an index on ``refunds.at``), each bounded by what is due, not by the trade.
    """
    seconds = settings.PAYMENT_RECOVERY_AFTER if older_than is None else older_than
    days = settings.SHOP_CREDIT_NOTE_RECOVERY_DAYS if since_days is None else since_days
    now = clock.now()
    report = {"invoices": 0, "credit_notes": 0}
    for order in Order.objects.without_invoice(now - datetime.timedelta(seconds=seconds), limit):
        invoice, issued = issue_invoice(order)
        if issued:
            report["invoices"] += 1
            logger.warning("Order %s had no invoice: %s issued by recovery.", order.number, invoice.number)
    for order in Order.objects.refunded_since(now - datetime.timedelta(days=days), limit):
        for entry in order.refunds or []:
            if entry.status == "succeeded" and not entry.credit_note:
                note, issued = issue_credit_note(order, entry.request)
                if issued:
                    report["credit_notes"] += 1
                    logger.warning("Order %s: refund %s had no credit note: %s issued by recovery.",
                                   order.number, entry.request, note.number)
    return report


# -- the PDF ----------------------------------------------------------------------------


def render_html(document):
    """The HTML of ``document`` (an ``Invoice``): ``templates/invoices/document.html``."""
    return render_to_string("invoices/document.html", {"doc": document, "shop_name": settings.SHOP_NAME})


def render_pdf(document):
    """``document`` (an ``Invoice``) as a PDF: bytes, rendered by WeasyPrint from
    ``render_html`` (no network: the template has no external resources)."""
    from weasyprint import HTML

    return HTML(string=render_html(document), base_url=str(settings.BASE_DIR)).write_pdf()


def attachment(document):
    """``(filename, PDF bytes, "application/pdf")`` of ``document`` for an e-mail."""
    return (document.filename, render_pdf(document), "application/pdf")


# -- after the sale ---------------------------------------------------------------------


def invoice_attachments(order):
    """Issue ``order``'s invoice (once) and return ``(Invoice, [its PDF as an e-mail
    attachment])``; ``(None, [])`` when that failed (logged: the e-mail goes without it,
    ``issue_missing`` issues it later)."""
    try:
        invoice, _ = issue_invoice(order)
        return invoice, [attachment(invoice)]
    except Exception:
        logger.exception("Order %s: its invoice could not be issued or rendered now.", order.number)
        return None, []


def credit_note_after_refund(sender=None, number="", request="", **kwargs):
    """``order_refunded``'s receiver: after the response, issue the refund's credit note and
    e-mail it to the shopper (``emails.send_credit_note``)."""

    after_response(_credit_and_mail, number, request)


def _credit_and_mail(number, request):

    order = Order.objects.get_by_number(number)
    if order is None:
        return
    note, issued = issue_credit_note(order, request)
    if note is not None and issued:
        send_credit_note(order, note)
