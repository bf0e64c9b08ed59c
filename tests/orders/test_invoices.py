"""Invoices and credit notes: gapless numbers under concurrency and crashes, the snapshot as
charged, the PDF's text, who may download it, a credit note per refund."""

import io
import threading

import pytest
from django.core import mail
from django.test import override_settings
from pypdf import PdfReader

from orders import fulfilment, invoices
from orders.checkout import place_order
from orders.managers.invoices import InvoiceManager, format_number
from orders.models import Invoice, Order
from orders.payments import StripeProvider
from orders.refunds import refund_lines, refund_order
from tests.orders.test_orders import ADDRESS, cart_with, place
from tests.support.inventory import stock
from tests.support.payments import card_token

LEGAL = dict(SHOP_LEGAL_NAME="Chinook Records Ltd", SHOP_LEGAL_ADDRESS=["1 High Street", "London EC1A 1AA"],
             SHOP_VAT_NUMBER="GB123456789", SHOP_LEGAL_DETAILS=["Registered in England no. 01234567"])


def pdf_text(content):
    """The text of every page of the PDF ``content`` (bytes), read with pypdf."""
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


@pytest.fixture(params=["transaction", "claim"])
def numbering(request, monkeypatch):
    """Each numbering path: one transaction (counter, document, order's mark), or the claim by
    the unique (kind, year, seq) index that a standalone MongoDB (no transactions) uses."""
    monkeypatch.setattr(InvoiceManager, "use_transactions", None if request.param == "transaction" else False)
    return request.param


def year_numbers(kind=Invoice.INVOICE):
    return [(doc.year, doc.seq) for doc in Invoice.objects.order_by("year", "seq")
            if doc.kind == kind]


def test_the_local_server_runs_the_numbering_in_a_transaction(monkeypatch):
    """SecantusDB has multi-document transactions through pymongo sessions: the transaction
    path is taken (and not switched off) on it."""
    stock("A", 5)
    monkeypatch.setattr(InvoiceManager, "use_transactions", None)
    order = place(cart_with(("A", 1)).id)
    assert Order.objects.get_by_number(order.number).invoice_number == format_number("invoice", order.placed_at.year, 1)
    assert InvoiceManager.use_transactions is None


def test_twenty_threads_placing_orders_get_twenty_consecutive_invoice_numbers(numbering):
    stock("A", 20)
    carts = [cart_with(("A", 1)).id for _ in range(20)]
    tokens = [card_token() for _ in carts]
    barrier = threading.Barrier(20)
    placed, errors = [], []

    def run(cart_id, token):
        barrier.wait()
        try:
            placed.append(place_order(cart_id, StripeProvider(), token, "Ada Lovelace", "ada@example.com",
                                      address=ADDRESS))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=pair) for pair in zip(carts, tokens)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(placed) == 20
    year = placed[0].placed_at.year
    docs = list(Invoice.objects.all())
    assert sorted(doc.seq for doc in docs) == list(range(1, 21))  # no gap, no duplicate
    assert {doc.number for doc in docs} == {format_number("invoice", year, n) for n in range(1, 21)}
    assert sorted(doc.order_number for doc in docs) == sorted(order.number for order in placed)
    stored = {order.number: order.invoice_number for order in Order.objects.all()}
    assert {doc.order_number: doc.number for doc in docs} == stored
    # Each confirmation e-mail carries its order's invoice.
    assert len(mail.outbox) == 20
    for message in mail.outbox:
        (attached,) = message.attachments
        assert attached[0].startswith(f"INV-{year}-") and attached[2] == "application/pdf"


def test_a_crash_between_the_payment_and_the_invoice_leaves_no_gap_once_recovery_runs(numbering, monkeypatch):
    stock("A", 5)
    first = place(cart_with(("A", 1)).id)

    def crash(order):
        raise ConnectionError("worker killed before the invoice")

    monkeypatch.setattr(invoices, "issue_invoice", crash)
    crashed = place(cart_with(("A", 1)).id)  # paid; its confirmation went without an invoice
    monkeypatch.undo()
    if numbering == "claim":
        monkeypatch.setattr(InvoiceManager, "use_transactions", False)
    assert not Order.objects.get_by_number(crashed.number).invoice_number
    assert Invoice.objects.count() == 1 and mail.outbox[-1].attachments == []
    # Not yet due: recovery leaves an order younger than its delay to the after-response work.
    assert invoices.issue_missing(older_than=3600) == {"invoices": 0, "credit_notes": 0}
    assert invoices.issue_missing(older_than=0) == {"invoices": 1, "credit_notes": 0}
    assert invoices.issue_missing(older_than=0) == {"invoices": 0, "credit_notes": 0}  # twice: no duplicate
    third = place(cart_with(("A", 1)).id)
    year = first.placed_at.year
    numbers = {order.number: Order.objects.get_by_number(order.number).invoice_number
               for order in (first, crashed, third)}
    assert numbers == {first.number: format_number("invoice", year, 1),
                       crashed.number: format_number("invoice", year, 2),
                       third.number: format_number("invoice", year, 3)}
    assert Invoice.objects.count() == 3


def test_a_crash_after_the_invoice_before_the_order_is_marked_issues_no_second_one(monkeypatch):
    """By claim the order's mark is a second write: recovery finds the document by its source
    and marks the order, issuing nothing new."""
    monkeypatch.setattr(InvoiceManager, "use_transactions", False)
    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    Order.objects.collection.update_one({"number": order.number}, {"$set": {"invoice_number": ""}})
    assert invoices.issue_missing(older_than=0) == {"invoices": 0, "credit_notes": 0}
    assert Order.objects.get_by_number(order.number).invoice_number == Invoice.objects.get().number


def test_the_invoice_waits_for_the_response_of_the_request_that_placed_the_order():
    """Never in checkout's critical path: inside a request the invoice (and the confirmation
    carrying it) comes once the response is sent (request_finished)."""
    from django.core.signals import request_finished, request_started

    stock("A", 5)
    request_started.send(sender=None)
    order = place(cart_with(("A", 1)).id)
    assert Invoice.objects.count() == 0 and mail.outbox == []
    request_finished.send(sender=None)
    invoice = Invoice.objects.get()
    assert invoice.order_number == order.number
    (message,) = mail.outbox
    assert message.attachments[0][0] == invoice.filename and f"Invoice {invoice.number} is attached" in message.body


def test_a_server_without_transactions_gets_its_numbers_by_claim(monkeypatch):
    """A standalone MongoDB answers IllegalOperation (code 20) to a transaction: the number is
    claimed by the unique index instead, and later issues go there directly."""
    from pymongo.errors import OperationFailure

    def standalone(self, document, mark):
        raise OperationFailure("Transaction numbers are only allowed on a replica set member or mongos", code=20)

    monkeypatch.setattr(InvoiceManager, "use_transactions", None)
    monkeypatch.setattr(InvoiceManager, "_issue_in_transaction", standalone)
    stock("A", 5)
    orders = [place(cart_with(("A", 1)).id) for _ in range(2)]
    assert InvoiceManager.use_transactions is False
    assert [Order.objects.get_by_number(o.number).invoice_number for o in orders] == [
        format_number("invoice", orders[0].placed_at.year, n) for n in (1, 2)]


def test_a_counter_behind_the_documents_is_brought_up_and_no_number_is_given_twice(monkeypatch):
    """Numbers claimed without a transaction (the counter untouched), then the transaction
    path: the duplicate number is refused, the counter raised to the highest, the next one used."""
    stock("A", 5)
    monkeypatch.setattr(InvoiceManager, "use_transactions", False)
    first = [place(cart_with(("A", 1)).id) for _ in range(2)]
    monkeypatch.setattr(InvoiceManager, "use_transactions", None)
    later = place(cart_with(("A", 1)).id)
    year = later.placed_at.year
    assert Order.objects.get_by_number(later.number).invoice_number == format_number("invoice", year, 3)
    assert Invoice.objects.numbers_of("invoice", year) == [1, 2, 3] and len(first) == 2


def test_recovery_by_the_command(monkeypatch):
    from django.core.management import call_command

    stock("A", 5)
    monkeypatch.setattr(invoices, "issue_invoice", lambda order: 1 / 0)
    order = place(cart_with(("A", 1)).id)
    monkeypatch.undo()
    out = io.StringIO()
    call_command("reconcile_payments", "--older-than", "0", stdout=out)
    assert "Invoices issued: 1" in out.getvalue()
    assert Order.objects.get_by_number(order.number).invoice_number
    call_command("issue_invoices", "--older-than", "0", stdout=out)
    assert "Invoices issued: 0; credit notes issued: 0." in out.getvalue()
    assert Invoice.objects.count() == 1


@override_settings(**LEGAL)
def test_the_pdf_holds_the_order_lines_the_legal_details_and_the_totals():
    stock("A", 5)
    stock("B", 5)
    order = place(cart_with(("A", 2), ("B", 1)).id)
    invoice = Invoice.objects.get()
    text = pdf_text(invoices.render_pdf(invoice))
    assert f"Invoice {invoice.number}" in text and order.number in text
    for line in order.lines:
        assert line.sku in text and line.title in text
    assert "Chinook Records Ltd" in text and "1 High Street" in text and "GB123456789" in text
    assert "Registered in England no. 01234567" in text
    assert "Ada Lovelace" in text and "SW1Y 4JH" in text
    from core.money import display
    assert display(order.total) in text and display(order.tax) in text and display(order.shipping) in text
    # The snapshot: the lines' stored shares, the order's figures.
    assert [(l.sku, l.qty, l.price, l.tax, l.tax_rate, l.amount) for l in invoice.lines] == [
        (l.sku, l.qty, l.price, l.tax, l.tax_rate, l.paid) for l in order.lines]
    assert (invoice.subtotal, invoice.shipping, invoice.shipping_tax, invoice.tax, invoice.total) == (
        order.subtotal, order.shipping, order.shipping_tax, order.tax, order.total)
    assert sum(l.amount for l in invoice.lines) + invoice.shipping_amount == invoice.total


def test_the_reverse_charge_is_stated_on_the_invoice():
    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    Order.objects.collection.update_one({"number": order.number}, {"$set": {
        "reverse_charge": True, "vat_number": "DE123456789", "invoice_number": ""}})
    Invoice.objects.collection.delete_many({})
    invoice, issued = invoices.issue_invoice(Order.objects.get_by_number(order.number))
    assert issued and invoice.reverse_charge and invoice.buyer_vat_number == "DE123456789"
    text = pdf_text(invoices.render_pdf(invoice))
    assert "Reverse charge" in text and "DE123456789" in text


def test_editing_a_tax_rate_or_the_legal_details_after_the_order_leaves_the_invoice_unchanged(settings):
    from taxes.models import TaxRate

    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    invoice = Invoice.objects.get()
    before = invoices.render_html(invoice)
    settings.SHOP_TAX_PERCENT = 7
    settings.SHOP_LEGAL_NAME = "Someone Else plc"
    for rate in TaxRate.objects.filter(country="GB"):
        rate.percent = 7
        rate.save()
    later = place(cart_with(("A", 1)).id)
    assert later.lines[0].tax_rate != order.lines[0].tax_rate  # the edit took, for new orders
    assert invoices.issue_invoice(Order.objects.get_by_number(order.number))[1] is False
    again = Invoice.objects.get(number=invoice.number)
    assert invoices.render_html(again) == before
    assert (again.lines[0].tax, again.lines[0].tax_rate, again.seller_name) == (
        order.lines[0].tax, order.lines[0].tax_rate, invoice.seller_name)


# -- credit notes -----------------------------------------------------------------------


def test_a_credit_note_per_refund_with_the_refunded_lines_and_amounts(numbering):
    stock("A", 5)
    stock("B", 5)
    order = place(cart_with(("A", 3), ("B", 1)).id)
    mail.outbox.clear()
    first = refund_lines(order.number, {0: 1}, "cracked case", by="kim", request="r1")
    second = refund_order(order.number, 500, "goodwill", by="kim", request="r2")
    notes = [doc for doc in Invoice.objects.order_by("seq") if doc.kind == Invoice.CREDIT_NOTE]
    year = order.placed_at.year
    assert [note.number for note in notes] == [format_number("credit_note", year, 1),
                                               format_number("credit_note", year, 2)]
    lines_note, amount_note = notes
    line = order.lines[0]
    assert lines_note.total == first and [(l.sku, l.qty, l.amount) for l in lines_note.lines] == [("A", 1, first)]
    assert lines_note.lines[0].tax == line.tax // 3
    assert lines_note.credited_invoice == Order.objects.get_by_number(order.number).invoice_number != ""
    assert amount_note.total == second == 500 and amount_note.lines[0].amount == 500
    assert amount_note.tax == 500 * order.tax // order.total
    stored = Order.objects.get_by_number(order.number)
    assert [entry.credit_note for entry in stored.refunds] == [lines_note.number, amount_note.number]
    # Each refund's e-mail carries its credit note.
    assert [message.attachments[0][0] for message in mail.outbox] == [f"{lines_note.number}.pdf",
                                                                      f"{amount_note.number}.pdf"]
    text = pdf_text(mail.outbox[0].attachments[0][1])
    assert f"Credit note {lines_note.number}" in text and line.sku in text and "cracked case" in text


def test_a_refund_whose_credit_note_was_lost_gets_it_from_recovery_once(monkeypatch):
    stock("A", 5)
    order = place(cart_with(("A", 2),).id)
    monkeypatch.setattr(invoices, "issue_credit_note", lambda *args: 1 / 0)
    refund_lines(order.number, {0: 1}, "late", by="kim", request="r1")
    monkeypatch.undo()
    assert not Order.objects.get_by_number(order.number).refunds[0].credit_note
    assert invoices.issue_missing(older_than=0) == {"invoices": 0, "credit_notes": 1}
    assert invoices.issue_missing(older_than=0) == {"invoices": 0, "credit_notes": 0}
    assert Order.objects.get_by_number(order.number).refunds[0].credit_note == format_number(
        "credit_note", order.placed_at.year, 1)


def test_a_cancelled_order_gets_a_credit_note_for_its_refund():
    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    fulfilment.cancel(order.number, note="by kim")
    (note,) = [doc for doc in Invoice.objects.all() if doc.kind == Invoice.CREDIT_NOTE]
    assert note.total == order.total


# -- downloads ----------------------------------------------------------------------------


def _checkout_order(client):
    """An order placed by ``client``'s session (remembered in it, as checkout does)."""
    from inventory.session import ORDERS

    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    session = client.session
    session[ORDERS] = [order.number]
    session.save()
    return order, Invoice.objects.get()


def test_the_order_page_links_the_pdf_and_the_owner_downloads_it(client):
    order, invoice = _checkout_order(client)
    page = client.get(f"/order/{order.number}/")
    url = f"/order/{order.number}/documents/{invoice.number}.pdf"
    assert url in page.content.decode() and f"Invoice {invoice.number} (PDF)" in page.content.decode()
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert order.lines[0].sku in pdf_text(response.content)


def test_only_the_owner_or_staff_can_download_it(client, django_user_model):
    from django.test import Client

    order, invoice = _checkout_order(client)
    url = f"/order/{order.number}/documents/{invoice.number}.pdf"
    stranger = Client()
    assert stranger.get(url).status_code == 404
    shopper = django_user_model.objects.create_user("eve", "eve@example.com", "pw-eve-12345")
    stranger.force_login(shopper)
    assert stranger.get(url).status_code == 404
    # A document that is not this order's: 404 too.
    assert client.get(f"/order/{order.number}/documents/INV-1999-000001.pdf").status_code == 404
    staff = django_user_model.objects.create_user("kim", "kim@example.com", "pw-kim-12345", is_staff=True)
    stranger.force_login(staff)
    assert stranger.get(url).status_code == 200


def test_the_admin_links_the_pdf_on_the_order_and_keeps_documents_read_only(admin_client):
    stock("A", 5)
    order = place(cart_with(("A", 1)).id)
    invoice = Invoice.objects.get()
    page = admin_client.get(f"/admin/orders/order/{Order.objects.get_by_number(order.number).pk}/change/")
    pdf_url = f"/admin/orders/invoice/{invoice.pk}/pdf/"
    assert pdf_url in page.content.decode()
    response = admin_client.get(pdf_url)
    assert response.status_code == 200 and order.lines[0].title in pdf_text(response.content)
    listing = admin_client.get("/admin/orders/invoice/")
    assert invoice.number in listing.content.decode()
    change = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/change/")
    assert change.status_code == 200 and b'name="_save"' not in change.content
    assert admin_client.post(f"/admin/orders/invoice/{invoice.pk}/delete/").status_code == 403
