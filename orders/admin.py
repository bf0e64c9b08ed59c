"""The staff's orders desk in the Django admin: list, search, filters, status actions.

Orders are read-only here: their lines, address, payment and history are
what the checkout wrote. Staff change an order only through the actions,
which call ``orders.fulfilment`` (conditional status changes: an order that
another click already moved is reported and left alone), and every change
is recorded in the admin's history (``LogEntry``). The actions need the
change permission; staff with only the view permission can look.
"""

import uuid
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core import clock
from core.money import cents, dollars, in_words
from core.templatetags.money import money

from . import fulfilment, numbers, pricing
from .exports import write_orders
from .exceptions import InvalidTransition, OrderError
from .models import Invoice, Order, PaymentAttempt
from .refunds import refund_lines, refund_order, refundable


class RefundForm(forms.Form):
    """A refund of part or all of an order: ``amount`` in dollars and cents as shown everywhere
    ("5.00" is $5.00; at most two decimal places; up to what is left), ``reason``; ``request``
    is the form's one-time key (a second press of this form refunds nothing). ``confirm``
    carries the cents the staff member confirmed on the second page (the amount in words):
    money moves only when it equals the amount typed."""

    amount = forms.DecimalField(label="Amount ($)", min_value=Decimal("0.01"), max_digits=11, decimal_places=2)
    reason = forms.CharField(max_length=300)
    request = forms.CharField(widget=forms.HiddenInput, max_length=64)
    confirm = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, left=0, **kwargs):
        super().__init__(*args, **kwargs)
        self.left = left
        self.fields["amount"].help_text = f"Dollars and cents, e.g. 5.00. At most {money(left)} is left to refund."

    def clean_amount(self):
        amount = cents(self.cleaned_data["amount"])
        if amount > self.left:
            raise forms.ValidationError(f"At most {money(self.left)} is left to refund.")
        return amount

    @property
    def confirmed(self):
        """True when the amount (cents, after ``is_valid``) is the one confirmed in words."""
        return self.cleaned_data.get("confirm") == self.cleaned_data["amount"]


class LineRefundForm(forms.Form):
    """A refund of units of an order's lines: ``units_<line index>`` per line with units left to
    refund, ``restock`` (the units go back to stock), ``reason``, ``request`` (one-time key),
    ``confirm`` (the cents confirmed in words on the second page)."""

    reason = forms.CharField(max_length=300)
    restock = forms.BooleanField(required=False, initial=True, label="Put the units back in stock")
    request = forms.CharField(widget=forms.HiddenInput, max_length=64)
    confirm = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, order=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.order = order
        self.line_fields = []
        for index, line in enumerate(order.lines):
            left = line.qty - (line.refunded_units or 0)
            if left:
                name = f"units_{index}"
                self.fields[name] = forms.IntegerField(label=f"{line.sku} {line.title}", min_value=0,
                                                       max_value=left, initial=0,
                                                       help_text=f"{left} of {line.qty} left to refund")
                self.line_fields.append((index, name))

    def units(self):
        """``{line index: units}`` of the lines with units in this refund."""
        return {index: self.cleaned_data[name] for index, name in self.line_fields if self.cleaned_data.get(name)}

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        if not self.units():
            raise forms.ValidationError("A refund of lines needs at least one unit.")
        self.amount = sum(pricing.refund_of_units(self.order.lines[i], n, self.order.lines[i].refunded_units or 0)
                          ["amount"] for i, n in self.units().items())
        return cleaned


class ShipmentForm(forms.Form):
    """A shipment of some units of an order's lines: ``units_<line index>`` per line with units
    left to ship (0..left), ``carrier`` (``SHOP_CARRIERS``), ``tracking`` number, ``shipped_on``."""

    carrier = forms.ChoiceField()
    tracking = forms.CharField(label="Tracking number", max_length=100, required=False)
    shipped_on = forms.DateField(label="Shipped on", help_text="YYYY-MM-DD (UTC)")

    def __init__(self, *args, order=None, **kwargs):
        from django.conf import settings

        super().__init__(*args, **kwargs)
        self.fields["carrier"].choices = [(key, carrier["name"]) for key, carrier in settings.SHOP_CARRIERS.items()]
        self.line_fields = []
        for index, line in enumerate(order.lines):
            if line.to_ship:
                name = f"units_{index}"
                self.fields[name] = forms.IntegerField(
                    label=f"{line.sku} {line.title}", min_value=0, max_value=line.to_ship, initial=line.to_ship,
                    help_text=f"{line.to_ship} of {line.qty} left to ship")
                self.fields[name].error_messages["max_value"] = f"at most {line.to_ship} unit(s) are left to ship."
                self.line_fields.append((index, name))

    def units(self):
        """``{line index: units}`` of the lines with units in this shipment."""
        return {index: self.cleaned_data[name] for index, name in self.line_fields if self.cleaned_data.get(name)}

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not self.units():
            raise forms.ValidationError("A shipment needs at least one unit of a line.")
        return cleaned


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    """Orders: number, date, customer, total, status; searchable by number and e-mail."""

    list_display = ["number", "placed_at", "name", "email", "total_price", "status"]
    list_filter = ["status", ("placed_at", admin.DateFieldListFilter)]
    search_fields = ["email"]
    search_help_text = "Search by order number (exact) or e-mail."
    ordering = ["-placed_at"]
    list_per_page = 50
    actions = ["ship", "deliver", "cancel_and_refund", "export_csv"]
    fields = ["number", "status", "placed_at", "name", "email", "account", "order_lines", "figures",
              "shipping_address", "billing", "payment_details", "shipment_list", "refund_history", "status_history",
              "order_timeline", "cart_id", "invoice_documents"]
    readonly_fields = fields

    @admin.display(description="Invoices")
    def invoice_documents(self, order):
        """The order's invoice and credit notes, each a link to its PDF (``InvoiceAdmin``)."""
        documents = Invoice.objects.for_order(order.number)
        if not documents:
            return "None yet (issued after the payment; reconcile_payments issues a missing one)."
        return format_html_join(
            mark_safe("<br>"), '<a href="{}">{} {} (PDF)</a>, {}: {}',  # nosec
            ((reverse("admin:orders_invoice_pdf", args=[doc.pk]), doc.title, doc.number,
              doc.issued_at.strftime("%Y-%m-%d"), money(doc.total)) for doc in documents))

    def get_urls(self):
        return [path("<path:object_id>/refund/", self.admin_site.admin_view(self.refund_view),
                     name="orders_order_refund"),
                path("<path:object_id>/refund-lines/", self.admin_site.admin_view(self.refund_lines_view),
                     name="orders_order_refund_lines"),
                path("<path:object_id>/note/", self.admin_site.admin_view(self.note_view),
                     name="orders_order_note"),
                path("<path:object_id>/ship/", self.admin_site.admin_view(self.ship_view),
                     name="orders_order_ship"),
                path("<path:object_id>/shipment/<int:shipment>/slip/", self.admin_site.admin_view(self.slip_view),
                     name="orders_order_slip"),
                *super().get_urls()]

    def refund_lines_view(self, request, object_id):
        """A refund of units of the order's lines (``refunds.refund_lines``): what was paid for
        them, confirmed in words first, restocked once. Needs the change permission."""
        order = self.get_object(request, object_id)
        if order is None:
            raise Http404("No such order.")
        if not self.has_change_permission(request, order):
            raise PermissionDenied
        form = LineRefundForm(request.POST or None, order=order, initial={"request": uuid.uuid4().hex})
        if request.method == "POST" and form.is_valid():
            if form.cleaned_data.get("confirm") != form.amount:
                return TemplateResponse(request, "admin/orders/order/refund_lines_confirm.html", {
                    **self.admin_site.each_context(request), "title": f"Confirm the refund of order {order.number}",
                    "order": order, "form": form, "amount": form.amount, "words": in_words(form.amount),
                    "opts": self.model._meta,
                })
            try:
                done = refund_lines(order.number, form.units(), form.cleaned_data["reason"],
                                    by=request.user.get_username(), request=form.cleaned_data["request"],
                                    restock=form.cleaned_data["restock"])
            except OrderError as error:
                form.add_error(None, str(error))
            else:
                if done:
                    self.log_change(request, order, f"refunded {done} cents for lines: {form.cleaned_data['reason']}")
                    self.message_user(request, f"Order {order.number}: {money(done)} refunded.", messages.SUCCESS)
                else:
                    self.message_user(request, f"Order {order.number}: this refund was already made; "
                                               "nothing more was refunded.", messages.WARNING)
                return redirect(reverse("admin:orders_order_change", args=[order.pk]))
        return TemplateResponse(request, "admin/orders/order/refund_lines.html", {
            **self.admin_site.each_context(request), "title": f"Refund lines of order {order.number}",
            "order": order, "form": form, "opts": self.model._meta,
        })

    def note_view(self, request, object_id):
        """A staff note on the order's timeline (change permission): GET the form, POST ``text``."""
        order = self.get_object(request, object_id)
        if order is None:
            raise Http404("No such order.")
        if not self.has_change_permission(request, order):
            raise PermissionDenied
        if request.method != "POST":
            return TemplateResponse(request, "admin/orders/order/note.html", {
                **self.admin_site.each_context(request), "title": f"A note on order {order.number}",
                "order": order, "opts": self.model._meta})
        try:
            Order.objects.add_note(order.number, request.POST.get("text", ""), request.user.get_username())
        except OrderError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, "Note added.", messages.SUCCESS)
        return redirect(reverse("admin:orders_order_change", args=[order.pk]))

    @admin.display(description="Timeline")
    def order_timeline(self, order):
        rows = format_html_join(
            "", "<li>{} UTC · {}: {}{}{}</li>",
            ((e.at.strftime("%Y-%m-%d %H:%M"), e.kind, e.text, f" (by {e.by})" if e.by else "",
              "" if e.public else " [staff only]") for e in order.timeline()),
        )
        add = format_html('<a class="button" href="{}">Add a note…</a>',
                          reverse("admin:orders_order_note", args=[order.pk]))
        return format_html('<ul class="timeline">{}</ul>{}', rows, add)

    def ship_view(self, request, object_id):
        """Ship some units of the order's lines as one shipment (``fulfilment.ship``): the status
        follows from the lines, the shopper gets the tracking link. Needs the change permission."""
        order = self.get_object(request, object_id)
        if order is None:
            raise Http404("No such order.")
        if not self.has_change_permission(request, order):
            raise PermissionDenied
        form = ShipmentForm(request.POST or None, order=order, initial={"shipped_on": clock.now().date()})
        if request.method == "POST" and form.is_valid():
            try:
                _, shipment = fulfilment.ship(order.number, form.units(), form.cleaned_data["carrier"],
                                              form.cleaned_data["tracking"].strip(), form.cleaned_data["shipped_on"],
                                              by=request.user.get_username())
            except (OrderError, InvalidTransition) as error:
                form.add_error(None, str(error))
            else:
                self.log_change(request, order, f"shipment {shipment.number}: {shipment.units} unit(s), "
                                                f"{shipment.carrier} {shipment.tracking}")
                self.message_user(request, f"Order {order.number}: Shipment {shipment.number} recorded; "
                                           "the shopper was e-mailed its tracking link.", messages.SUCCESS)
                return redirect(reverse("admin:orders_order_change", args=[order.pk]))
        return TemplateResponse(request, "admin/orders/order/ship.html", {
            **self.admin_site.each_context(request), "title": f"Ship order {order.number}",
            "order": order, "form": form, "opts": self.model._meta,
        })

    def slip_view(self, request, object_id, shipment):
        """The printable packing slip of shipment number ``shipment`` (HTML); 404 if none."""
        order = self.get_object(request, object_id)
        if order is None:
            raise Http404("No such order.")
        parcel = next((s for s in order.shipments or () if s.number == shipment), None)
        if parcel is None:
            raise Http404("No such shipment.")
        from django.conf import settings

        return TemplateResponse(request, "admin/orders/order/packing_slip.html", {
            "order": order, "shipment": parcel, "shop_name": settings.SHOP_NAME})

    @admin.display(description="Shipments")
    def shipment_list(self, order):
        rows = format_html_join(
            mark_safe("<br>"), 'Shipment {} on {}: {} unit(s) by {} {} (<a href="{}">packing slip</a>)',  # nosec
            ((s.number, s.shipped_on, s.units, s.carrier_name, s.tracking,
              reverse("admin:orders_order_slip", args=[order.pk, s.number])) for s in order.shipments or ()),
        )
        can_ship = order.status in (Order.PAID, Order.PARTLY_SHIPPED) and any(line.to_ship for line in order.lines)
        link = format_html('<a class="button" href="{}">Ship…</a>',
                           reverse("admin:orders_order_ship", args=[order.pk])) if can_ship else ""
        return format_html("{}{}{}", rows or "None.", mark_safe("<br>") if link else "", link)  # nosec

    def refund_view(self, request, object_id):
        """A refund of the order, full or partial, through the provider (``refunds.refund_order``).
        Needs the change permission; a second press of one form refunds nothing more."""
        order = self.get_object(request, object_id)
        if order is None:
            raise Http404("No such order.")
        if not self.has_change_permission(request, order):
            raise PermissionDenied
        left = refundable(order)
        form = RefundForm(request.POST or None, left=left,
                          initial={"amount": dollars(left), "request": uuid.uuid4().hex})
        if request.method == "POST" and form.is_valid() and not form.confirmed:
            # First press: say the amount in words; nothing moves until it is confirmed.
            return TemplateResponse(request, "admin/orders/order/refund_confirm.html", {
                **self.admin_site.each_context(request), "title": f"Confirm the refund of order {order.number}",
                "order": order, "form": form, "amount": form.cleaned_data["amount"],
                "words": in_words(form.cleaned_data["amount"]), "opts": self.model._meta,
            })
        if request.method == "POST" and form.is_valid():
            try:
                done = refund_order(order.number, form.cleaned_data["amount"], form.cleaned_data["reason"],
                                    by=request.user.get_username(), request=form.cleaned_data["request"])
            except OrderError as error:
                form.add_error(None, str(error))
            else:
                if done:
                    self.log_change(request, order, f"refunded {done} cents: {form.cleaned_data['reason']}")
                    self.message_user(request, f"Order {order.number}: {money(done)} refunded.", messages.SUCCESS)
                else:
                    self.message_user(request, f"Order {order.number}: this refund was already made; "
                                               "nothing more was refunded.", messages.WARNING)
                return redirect(reverse("admin:orders_order_change", args=[order.pk]))
        return TemplateResponse(request, "admin/orders/order/refund.html", {
            **self.admin_site.each_context(request), "title": f"Refund order {order.number}",
            "order": order, "form": form, "left": left, "opts": self.model._meta,
        })

    @admin.display(description="Refunds")
    def refund_history(self, order):
        # mark_safe of a constant separator (bandit B308 reviewed).
        rows = format_html_join(
            mark_safe("<br>"), "{} UTC: {} by {} ({}){}",  # nosec
            ((entry.at.strftime("%Y-%m-%d %H:%M"), money(entry.amount), entry.by, entry.reason or "no reason",
              "" if entry.status == "succeeded" else f" [{entry.status}]") for entry in order.refunds),
        )
        link = format_html('<a class="button" href="{}">Refund…</a> <a class="button" href="{}">Refund lines…</a>',
                           reverse("admin:orders_order_refund", args=[order.pk]),
                           reverse("admin:orders_order_refund_lines", args=[order.pk])) if refundable(order) else ""
        return format_html("{}{}{}", rows or "None.", mark_safe("<br>") if link else "", link)  # nosec

    def has_add_permission(self, request):
        return False  # Orders are placed at checkout.

    def has_delete_permission(self, request, obj=None):
        return False  # Cancel instead: that returns the stock and refunds.

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "show_save": False,
                         "show_save_and_continue": False, "show_save_and_add_another": False}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_search_results(self, request, queryset, search_term):
        # An order number (typed in any case, "cr-0000a") is looked up exactly. Not through
        # search_fields' "=number": the backend's iexact builds an unescaped regex.
        number = numbers.normalize(search_term)
        if number:
            return queryset.filter(number=number), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description="Total", ordering="total")
    def total_price(self, order):
        return money(order.total)

    @admin.display(description="Account")
    def account(self, order):
        return order.user_id or "guest"

    @admin.display(description="Lines")
    def order_lines(self, order):
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((line.sku, line.title, line.qty, money(line.price), money(line.subtotal)) for line in order.lines),
        )
        return format_html('<table class="lines"><thead><tr><th>SKU</th><th>Title</th><th>Quantity</th>'
                           "<th>Price</th><th>Subtotal</th></tr></thead><tbody>{}</tbody></table>", rows)

    @admin.display(description="Figures")
    def figures(self, order):
        return format_html("Items {} + shipping {} + tax {} = <strong>{}</strong>", money(order.subtotal),
                           money(order.shipping), money(order.tax), money(order.total))

    @admin.display(description="Shipping address")
    def shipping_address(self, order):
        if order.address is None:
            return "None."
        # mark_safe of a constant separator (bandit B308 reviewed).
        return format_html_join(mark_safe("<br>"), "{}", ((part,) for part in order.address.lines()))  # nosec

    @admin.display(description="Billing address")
    def billing(self, order):
        """The billing address as validated at checkout, in its country's lines; "Same as
        shipping." when it is the shipping address (or was not asked)."""
        if not order.billed_elsewhere:
            return "Same as shipping."
        # mark_safe of a constant separator (bandit B308 reviewed).
        return format_html_join(mark_safe("<br>"), "{}", ((part,) for part in order.billing_address.lines()))  # nosec

    @admin.display(description="Payment")
    def payment_details(self, order):
        if order.payment is None:
            return "None."
        return f"{order.payment.brand} ending {order.payment.last4}, reference {order.payment.reference}"

    @admin.display(description="History")
    def status_history(self, order):
        return format_html_join(
            mark_safe("<br>"), "{} UTC: {}{}",  # nosec
            ((change.at.strftime("%Y-%m-%d %H:%M"), change.status, f" ({change.note})" if change.note else "")
             for change in order.history),
        )

    def _run(self, request, queryset, step, done_message):
        changed, refused = 0, []
        for order in queryset:
            try:
                step(order.number, note=f"by {request.user.get_username()}")
            except InvalidTransition as error:
                refused.append(str(error))
                continue
            except OrderError as error:  # cancelled and restocked, but the refund failed
                self.log_change(request, order, str(error))
                refused.append(str(error))
                continue
            changed += 1
            self.log_change(request, order, done_message)
        if changed:
            self.message_user(request, f"{changed} order(s): {done_message}", messages.SUCCESS)
        for reason in refused:
            self.message_user(request, reason, messages.WARNING)

    @admin.action(description="Mark shipped (e-mails the shipping notice)", permissions=["change"])
    def ship(self, request, queryset):
        self._run(request, queryset, fulfilment.mark_shipped, "marked shipped; shipping notice sent.")

    @admin.action(description="Mark delivered", permissions=["change"])
    def deliver(self, request, queryset):
        self._run(request, queryset, fulfilment.mark_delivered, "marked delivered.")

    @admin.action(description="Cancel and refund (returns the stock)", permissions=["change"])
    def cancel_and_refund(self, request, queryset):
        self._run(request, queryset, fulfilment.cancel, "cancelled, stock returned, payment refunded.")


    @admin.action(description="Download as CSV (for the accountants)", permissions=["view"])
    def export_csv(self, request, queryset):
        """The selected orders as ``orders/exports.py``'s CSV, oldest first."""
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="orders.csv"'
        write_orders(response, numbers=list(queryset.values_list("number", flat=True)))
        return response

@admin.register(PaymentAttempt)
class PaymentAttemptAdmin(admin.ModelAdmin):
    """The payment ledger, read-only: every checkout's attempt, and which ones recovery settled.

    Filter "recovered: yes" lists the attempts ``reconcile_payments``
    finished, refunded or voided after a crash, each with a note of what it did.
    """

    list_display = ["key", "created_at", "status", "amount_price", "order_number", "recovered", "note"]
    list_filter = ["recovered", "status", ("created_at", admin.DateFieldListFilter)]
    search_fields = ["=cart_id", "=order_number"]
    search_help_text = "Search by cart id or order number (exact)."
    ordering = ["-created_at"]
    list_per_page = 50
    fields = ["key", "status", "cart_id", "amount_price", "intent_id", "charge_id", "order_number", "created_at",
              "updated_at", "recovered", "note"]
    readonly_fields = fields

    @admin.display(description="amount", ordering="amount")
    def amount_price(self, attempt):
        return money(attempt.amount)

    def has_add_permission(self, request):
        return False  # Attempts are recorded by checkout.

    def has_change_permission(self, request, obj=None):
        return False  # Only checkout and reconcile_payments move an attempt on.

    def has_delete_permission(self, request, obj=None):
        return False  # The ledger is the shop's record of money taken.
from . import admin_returns  # noqa: E402,F401  (returns' admin: orders/admin_returns.py)
from .invoices import render_pdf


@admin.register(Invoice)
class InvoiceAdmin(admin.ModelAdmin):
    """Invoices and credit notes, read-only (issued by ``orders.invoices``, never edited): the
    list by number, order and date, each with its PDF (``<id>/pdf/``)."""

    list_display = ["number", "kind", "issued_at", "order_number", "buyer_name", "total_price", "pdf_link"]
    list_filter = ["kind", "year"]
    search_fields = ["=number", "=order_number"]
    search_help_text = "Search by document number or order number (exact)."
    ordering = ["-issued_at"]
    list_per_page = 50
    fields = ["number", "kind", "issued_at", "order_link", "credited_invoice", "reason", "seller_name",
              "seller_address", "seller_vat_number", "buyer_name", "buyer_email", "buyer_address",
              "buyer_vat_number", "document_lines", "document_figures", "reverse_charge", "pdf_link"]
    readonly_fields = fields

    def get_urls(self):
        return [path("<path:object_id>/pdf/", self.admin_site.admin_view(self.pdf_view), name="orders_invoice_pdf"),
                *super().get_urls()]

    def pdf_view(self, request, object_id):
        """The document's PDF (``orders.invoices.render_pdf``); needs the view permission."""

        document = self.get_object(request, object_id)
        if document is None:
            raise Http404("No such document.")
        if not self.has_view_permission(request, document):
            raise PermissionDenied
        response = HttpResponse(render_pdf(document), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="{document.filename}"'
        return response

    @admin.display(description="Total", ordering="total")
    def total_price(self, document):
        return money(document.total)

    @admin.display(description="PDF")
    def pdf_link(self, document):
        return format_html('<a href="{}">{} (PDF)</a>', reverse("admin:orders_invoice_pdf", args=[document.pk]),
                           document.filename)

    @admin.display(description="Order")
    def order_link(self, document):
        order = Order.objects.get_by_number(document.order_number)
        if order is None:
            return document.order_number
        return format_html('<a href="{}">{}</a>', reverse("admin:orders_order_change", args=[order.pk]),
                           document.order_number)

    @admin.display(description="Lines")
    def document_lines(self, document):
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}%</td><td>{}</td><td>{}</td></tr>",
            ((line.sku, line.title, line.qty, money(line.price), money(line.net), line.tax_rate, money(line.tax),
              money(line.amount)) for line in document.lines))
        return format_html('<table class="lines"><thead><tr><th>SKU</th><th>Title</th><th>Quantity</th><th>Price</th>'
                           "<th>Net</th><th>Rate</th><th>Tax</th><th>Amount</th></tr></thead><tbody>{}</tbody></table>",
                           rows)

    @admin.display(description="Figures")
    def document_figures(self, document):
        return format_html("Items {} − discounts {} + shipping {} ({} tax) · {} {} · <strong>total {}</strong>",
                           money(document.subtotal), money(document.discount), money(document.shipping),
                           money(document.shipping_tax), document.tax_name, money(document.tax),
                           money(document.total))

    def has_add_permission(self, request):
        return False  # Issued after the payment and after each refund.

    def has_change_permission(self, request, obj=None):
        return False  # A snapshot: an error is corrected by a credit note, never by an edit.

    def has_delete_permission(self, request, obj=None):
        return False  # Numbers are gapless: a document is never removed.
