"""The shopper's side of returns (orders.returns): the order page's returns section and the
POST that asks for a return. Thin: the form checks the input, ``returns.request_return`` the
order (the window, the units left), one conditional write.

Shown and accepted for the same shoppers as the order page (``views.order``): the session
that placed the order or the account that owns it; anyone else gets a 404.
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from inventory.session import ORDERS

from . import returns
from .exceptions import OrderError
from .models import Order, ReturnRequest


class ReturnForm(forms.Form):
    """A return of some units of an order's returnable lines: ``units_<line index>`` (0..the
    units that may still be returned), ``reason`` (``SHOP_RETURN_REASONS``), ``comment``."""

    reason = forms.ChoiceField(label="Reason")
    comment = forms.CharField(label="Anything to add (optional)", max_length=1000, required=False,
                              widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, rows=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reason"].choices = [("", "Choose…"), *settings.SHOP_RETURN_REASONS.items()]
        self.line_fields = []
        for index, line, left in rows:
            name = f"units_{index}"
            self.fields[name] = forms.IntegerField(label=line.title, min_value=0, max_value=left, initial=0,
                                                   help_text=f"up to {left}")
            self.fields[name].error_messages["max_value"] = (
                f"At most {left} unit(s) of {line.title} can be returned.")
            self.line_fields.append((index, name))

    def units(self):
        """``{line index: units}`` of the lines with units in this return."""
        return {index: self.cleaned_data[name] for index, name in self.line_fields if self.cleaned_data.get(name)}

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not self.units():
            raise forms.ValidationError("Choose at least one unit to return.")
        return cleaned


def owns(request, order):
    """True when ``request``'s session placed ``order`` or its account owns it (as ``views.order``)."""
    user_id = str(request.user.pk) if request.user.is_authenticated else ""
    return order.number in request.session.get(ORDERS, []) or bool(order.user_id and order.user_id == user_id)


def section(order, form=None):
    """The context of the order page's returns section: ``returns`` (its ``ReturnRequest``s,
    newest first, with ``step`` text), ``return_form`` (None when nothing may be returned now),
    ``window_end`` (aware UTC or None), ``window_days``."""
    rows, end = returns.returnable(order)
    requests = ReturnRequest.objects.for_order(order)
    for item in requests:
        item.step = returns.STEP_TEXT.get(item.status, item.status)
    return {"returns": requests, "return_form": form or (ReturnForm(rows=rows) if rows else None),
            "window_end": end, "window_days": settings.SHOP_RETURN_WINDOW_DAYS, "order": order}


@require_POST
def request_return(request, number):
    """``POST /order/<number>/return/``: ask for a return of the units chosen. Valid: recorded,
    e-mailed, back to the order page with a message. Refused (a form error, the window closed,
    more units than left): the order page again with the reason (400), nothing recorded."""
    order = Order.objects.get_by_number(number)
    if order is None or not owns(request, order):
        raise Http404("No such order.")
    rows, _ = returns.returnable(order)
    form = ReturnForm(request.POST, rows=rows)
    error = None
    if not rows:
        try:
            returns.check_window(ReturnRequest.objects.order_document(order.number))
        except OrderError as refused:
            error = str(refused)
        else:
            error = "Every unit shipped is already returned or asked for."
    elif form.is_valid():
        by = request.user.email if request.user.is_authenticated else order.email
        try:
            returns.request_return(order.number, form.units(), form.cleaned_data["reason"],
                                   form.cleaned_data["comment"], by=by,
                                   user_id=str(request.user.pk) if request.user.is_authenticated else "")
        except OrderError as refused:
            error = str(refused)
        else:
            messages.success(request, "Your return request is recorded; we e-mailed you a copy and will "
                                      "write again when it is approved.")
            return redirect(order)
    if error:
        form.add_error(None, error)
    page = render(request, "orders/order.html", {"order": Order.objects.get_by_number(number), "return_form": form},
                  status=400)
    return page
