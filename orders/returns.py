"""Returns a shopper starts from the order page, and staff settle in the admin.

A shopper (the account that owns the order, or the session that placed it) asks from the
order page, within ``SHOP_RETURN_WINDOW_DAYS`` of delivery (or of the last shipment when the
order was not marked delivered), for some units of some shipped lines back, with a reason
(``request_return``). Staff then, in the admin (``orders/admin_returns.py``):

* ``approve`` or ``refuse`` (with a note; a refusal frees the units for another return);
* ``receive`` when the parcel is back;
* ``refund`` and restock in one step: ``refunds.refund_lines`` with the return's units and
  its own key (``ReturnRequest.refund_request``), so the amount is what was paid for those
  units (their share of the discounts plus their tax, as stored at checkout), reserved on the
  order before Stripe is asked and never more than is left; the units then go back to stock
  once (``refunds.restock_refund``). **Shipping is not refunded by a return** (the parcel did
  travel); staff refund it by amount (**Refund…** on the order) when the shop was at fault.

Each step is one conditional write on the return's previous status that pushes its event
(``ReturnRequest.objects.move``), so two staff clicking at once act once; the shopper is
e-mailed after each step (a failing mail server is logged, the step stays done). The order's
timeline lists the returns' events (``timeline_entries``) and its status follows from the
refunded lines ("partly returned", "returned").

``recover`` (run by ``reconcile_payments``) finishes what a crash left: a refund of lines
whose restock did not run, and a return whose refund went through but was not marked
refunded.
"""

import datetime
import logging

from django.conf import settings

from core import clock
from core.money import display

from .emails import send_templated
from .exceptions import OrderError
from .managers.returns import INTERRUPTED_AFTER, returnable_units
from .models import Order, ReturnRequest, TimelineEntry
from . import pricing
from .refunds import refund_lines, restock_refund

logger = logging.getLogger(__name__)

#: What each step tells the shopper (the e-mail's heading and the order page's status line).
STEP_TEXT = {
    ReturnRequest.REQUESTED: "We received your return request.",
    ReturnRequest.APPROVED: "Your return is approved: please send the items back.",
    ReturnRequest.REFUSED: "Your return was refused.",
    ReturnRequest.RECEIVED: "We received the items you sent back.",
    ReturnRequest.REFUNDING: "We received the items you sent back.",
    ReturnRequest.REFUNDED: "Your return is refunded.",
}


def _aware(value):
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value


def window_start(order):
    """When the return window of ``order`` (a raw order document) opened (aware UTC): its
    delivery (the last "delivered" history entry), else its last shipment, else the last
    "shipped" history entry; None when nothing shipped."""
    history = order.get("history") or []
    delivered = [e["at"] for e in history if e.get("status") == "delivered"]
    if delivered:
        return _aware(max(delivered))
    shipments = order.get("shipments") or []
    if shipments:
        return _aware(max(s["at"] for s in shipments))
    shipped = [e["at"] for e in history if e.get("status") in ("shipped", "partly shipped")]
    return _aware(max(shipped)) if shipped else None


def window_end(order):
    """The last moment (aware UTC) a return of ``order`` (raw document) may be asked, or None
    when nothing shipped yet."""
    start = window_start(order)
    return None if start is None else start + datetime.timedelta(days=settings.SHOP_RETURN_WINDOW_DAYS)


def check_window(order):
    """Raise ``OrderError`` with the reason when ``order`` (raw document) may not be returned now:
    nothing shipped, cancelled, or past the window."""
    if order.get("status") in (Order.CANCELLED, Order.REFUNDED, Order.PLACED):
        raise OrderError("This order cannot be returned: it was not shipped.")
    end = window_end(order)
    if end is None:
        raise OrderError("Nothing of this order has shipped yet: there is nothing to return.")
    if clock.now() > end:
        raise OrderError(f"The return window of {settings.SHOP_RETURN_WINDOW_DAYS} days closed on "
                         f"{end:%d %B %Y}: this order can no longer be returned.")


def returnable(order):
    """``[(line index, OrderLine, units the shopper may still return)]`` of ``order`` (an
    ``Order``), and the window's end (aware UTC or None): ``([], end)`` when it may not be
    returned now (outside the window, nothing shipped)."""
    document = ReturnRequest.objects.order_document(order.number)
    try:
        check_window(document)
    except OrderError:
        return [], window_end(document) if document else None
    rows = [(i, line, returnable_units(document, i)) for i, line in enumerate(order.lines)]
    return [row for row in rows if row[2]], window_end(document)


def request_return(number, units, reason, comment, by, user_id=""):
    """The shopper asks to return ``units`` (``{line index: units}``) of order ``number`` for
    ``reason`` (a key of ``SHOP_RETURN_REASONS``) with ``comment`` (up to 1000 characters);
    ``by`` their e-mail, ``user_id`` their account ("" for a guest). One insert and one
    conditional write on the order (``ReturnRequest.objects.request``), then the e-mail.

    Returns the ``ReturnRequest``. Raises ``OrderError`` with a message for the shopper:
    an unknown reason, no units, more units than shipped less those returned or asked for,
    nothing shipped, or the window closed (nothing is written then).
    """
    if reason not in settings.SHOP_RETURN_REASONS:
        raise OrderError("Choose a reason for the return.")
    request = ReturnRequest.objects.request(number, units, reason, (comment or "").strip()[:1000], by, user_id,
                                            check_window)
    _tell(request)
    return request


def _tell(request):
    """E-mail the shopper the step ``request`` is at; a failing mail server is logged."""
    try:
        order = Order.objects.get_by_number(request.order_number)
        send_templated("return_update", [request.email],
                       {"order": order, "request": request, "step": STEP_TEXT.get(request.status, request.status),
                        "event": request.events[-1] if request.events else None})
    except Exception:
        logger.exception("Return %s of order %s: e-mail of %s not sent.", request.pk, request.order_number,
                         request.status)


def _move(return_id, before, after, by, note="", extra=None):
    request = ReturnRequest.objects.get_by_id(return_id)
    if request is None:
        raise OrderError("No such return.")
    moved = ReturnRequest.objects.move(return_id, before, after, by, note, extra)
    if moved is None:
        fresh = ReturnRequest.objects.get_by_id(return_id)
        raise OrderError(f"This return is {fresh.status}: it cannot become {after} (someone else acted first?).")
    return moved


def approve(return_id, by, note=""):
    """requested -> approved (``by`` the staff username). Returns the ``ReturnRequest``.
    Raises ``OrderError`` when it is not requested (another click came first)."""
    request = _move(return_id, ReturnRequest.REQUESTED, ReturnRequest.APPROVED, by, note)
    _tell(request)
    return request


def refuse(return_id, by, note):
    """requested -> refused with ``note`` (the reason told the shopper, required); the units
    are free for another return. Raises ``OrderError`` (no note, not requested)."""
    note = (note or "").strip()
    if not note:
        raise OrderError("Say why the return is refused: the shopper reads it.")
    request = _move(return_id, ReturnRequest.REQUESTED, ReturnRequest.REFUSED, by, note)
    ReturnRequest.objects.release_units(request)
    _tell(request)
    return request


def receive(return_id, by, note=""):
    """approved -> received (the parcel is back). Raises ``OrderError`` when not approved."""
    request = _move(return_id, ReturnRequest.APPROVED, ReturnRequest.RECEIVED, by, note)
    _tell(request)
    return request


def amount_of(request):
    """The cents a refund of ``request`` (a ``ReturnRequest``) would give back now: what was paid
    for its units after those refunded before (``pricing.refund_of_units``)."""

    order = Order.objects.get_by_number(request.order_number)
    return sum(pricing.refund_of_units(order.lines[line.line], line.qty, order.lines[line.line].refunded_units or 0)
               ["amount"] for line in request.lines)


def refund(return_id, by, provider=None):
    """received -> refunding -> refunded: refund what was paid for the return's units through
    the provider and put them back in stock, once (``refunds.refund_lines`` with the return's
    own key). The first write (received -> refunding) is the claim: of two staff pressing at
    once, one refunds and the other gets ``OrderError``. A refusal (Stripe, or more than is
    left) puts the return back to received with the reason as its event and raises
    ``OrderError``. Returns the ``ReturnRequest`` (refunded, ``amount`` in cents)."""

    request = _move(return_id, ReturnRequest.RECEIVED, ReturnRequest.REFUNDING, by)
    units = {line.line: line.qty for line in request.lines}
    try:
        refund_lines(request.order_number, units, f"return: {request.reason_text}", by=by,
                     request=request.refund_request, restock=True, provider=provider)
    except OrderError as error:
        ReturnRequest.objects.move(return_id, ReturnRequest.REFUNDING, ReturnRequest.RECEIVED, by,
                                   f"refund refused: {error}")
        raise
    return _finish(request, by)


def _finish(request, by):
    """The refund of ``request`` went through: refunding -> refunded with its amount (read from
    the order's refund), units released, shopper told. None when another caller finished it."""
    order = Order.objects.get_by_number(request.order_number)
    entry = next((r for r in order.refunds if r.request == request.refund_request), None)
    amount = entry.amount if entry else 0
    done = ReturnRequest.objects.move(request.pk, ReturnRequest.REFUNDING, ReturnRequest.REFUNDED, by,
                                      f"{display(amount)} refunded", {"amount": amount})
    ReturnRequest.objects.release_units(request)
    if done is not None:
        _tell(done)
    return done or ReturnRequest.objects.get_by_id(request.pk)


def timeline_entries(order):
    """The returns' events of ``order`` as ``TimelineEntry``s (kind "return", public)."""
    entries = []
    for request in ReturnRequest.objects.for_order(order):
        units = ", ".join(f"{line.qty} x {line.title}" for line in request.lines)
        for event in request.events:
            text = f"Return {event.status}: {units}" + (f" ({event.note})" if event.note else "")
            entries.append(TimelineEntry(event.at, "return", text, event.by))
    return entries


def recover(older_than=None):
    """Finish what a crash left after a refund (``reconcile_payments``): every refund of lines
    that went through with its restock still due gets its units back in stock once
    (``refunds.restock_refund``), and every return left in "refunding" longer than
    ``older_than`` (a timedelta, default 5 minutes) whose refund went through is marked
    refunded (units released, shopper told). Returns ``{'restocked', 'returns'}`` counts."""

    report = {"restocked": 0, "returns": 0}
    for number, request in Order.objects.restocks_due():
        if restock_refund(number, request):
            report["restocked"] += 1
    threshold = clock.now() - (INTERRUPTED_AFTER if older_than is None else older_than)
    for request in ReturnRequest.objects.in_status(ReturnRequest.REFUNDING):
        if request.events and _aware(request.events[-1].at) > threshold:
            continue  # may still be running
        order = Order.objects.get_by_number(request.order_number)
        entry = next((r for r in order.refunds if r.request == request.refund_request), None)
        if entry is not None and entry.status == "succeeded":
            restock_refund(order.number, request.refund_request)
            _finish(request, "recovery")
            report["returns"] += 1
        elif entry is None:  # the refund was never reserved: back to received, staff refund again
            ReturnRequest.objects.move(request.pk, ReturnRequest.REFUNDING, ReturnRequest.RECEIVED, "recovery",
                                       "the refund was interrupted before it started; refund again")
            report["returns"] += 1
    return report
