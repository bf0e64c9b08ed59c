"""The orders' e-mails, through Django's mail API: HTML with a plain-text alternative.

Templates ``emails/<name>.txt`` (the body) and ``emails/<name>.html`` (the
alternative) with ``emails/<name>_subject.txt``. The backend is Django's
(``EMAIL_URL``: the console in development, SMTP in production).
"""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from core.afterresponse import after_response


def send_templated(name, to, context, attachments=()):
    """Render ``emails/<name>*`` with ``context`` and send it to ``to`` (a list of addresses),
    with ``attachments`` (``(filename, bytes, mimetype)`` tuples, e.g. an invoice's PDF).

    Returns the number of messages sent (1). Raises what the mail backend raises.
    """
    context = {**context, "shop_name": settings.SHOP_NAME, "site_url": settings.SHOP_SITE_URL}
    subject = " ".join(render_to_string(f"emails/{name}_subject.txt", context).split())
    message = EmailMultiAlternatives(subject, render_to_string(f"emails/{name}.txt", context),
                                     settings.DEFAULT_FROM_EMAIL, to)
    message.attach_alternative(render_to_string(f"emails/{name}.html", context), "text/html")
    for filename, content, mimetype in attachments:
        message.attach(filename, content, mimetype)
    return message.send()


def send_order_confirmation(sender=None, order=None, **kwargs):
    """E-mail the order confirmation to ``order.email`` (an ``order_placed`` receiver), with the
    order's invoice as a PDF: after the response (``core.afterresponse``; at once outside a
    request), so that issuing and rendering the invoice never delays checkout's answer."""

    after_response(_confirm_with_invoice, order)


def _confirm_with_invoice(order):
    from .invoices import invoice_attachments

    invoice, attachments = invoice_attachments(order)
    return send_templated("order_confirmation", [order.email], {"order": order, "invoice": invoice}, attachments)


def send_shipping_notice(order):
    """E-mail the shipping notice of ``order`` to ``order.email``."""
    return send_templated("shipping_notice", [order.email], {"order": order})


def send_shipment_notice(order, shipment):
    """E-mail ``order.email`` that ``shipment`` (an ``orders.models.Shipment``) of ``order``
    left, with its lines and the carrier's tracking link."""
    return send_templated("shipment_notice", [order.email], {"order": order, "shipment": shipment})


def send_credit_note(order, note):
    """E-mail ``order.email`` that a refund of ``order`` went through, with its credit note
    ``note`` (an ``orders.models.Invoice``) as a PDF (``emails/credit_note.*``)."""
    from .invoices import attachment

    return send_templated("credit_note", [order.email], {"order": order, "note": note}, [attachment(note)])
