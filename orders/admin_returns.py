"""The staff's returns desk in the Django admin (``ReturnRequest``, orders.returns).

Read-only lists and pages; staff move a return on only through its steps (change
permission): **Approve** or **Refuse** (with a note the shopper reads), **Mark received**,
then **Refund and restock** (the amount in words first, then **Yes, refund $X**). Each step
is ``orders.returns``' conditional write on the previous status: a step another member of
staff took first is reported and nothing more happens. Every step is in the admin's
history (``LogEntry``) and on the order's timeline.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core.money import in_words
from core.templatetags.money import money

from . import numbers, returns
from .exceptions import OrderError
from .models import Order, ReturnRequest

#: step -> (the return's status it needs, the button's text, whether a note is required)
STEPS = {
    "approve": (ReturnRequest.REQUESTED, "Approve", False),
    "refuse": (ReturnRequest.REQUESTED, "Refuse", True),
    "receive": (ReturnRequest.APPROVED, "Mark received", False),
    "refund": (ReturnRequest.RECEIVED, "Refund and restock", False),
}


@admin.register(ReturnRequest)
class ReturnRequestAdmin(admin.ModelAdmin):
    """Returns: order, asked, shopper, units, reason, status; filter by status; search by order
    number (exact)."""

    list_display = ["order_number", "requested_at", "email", "units", "reason", "status"]
    list_filter = ["status"]
    search_fields = ["email"]
    search_help_text = "Search by order number (exact) or e-mail."
    ordering = ["-requested_at"]
    list_per_page = 50
    fields = ["order_link", "status", "requested_at", "email", "return_lines", "reason", "comment", "refund_amount",
              "event_list", "step_buttons"]
    readonly_fields = fields

    def get_urls(self):
        return [path("<path:object_id>/step/<str:step>/", self.admin_site.admin_view(self.step_view),
                     name="orders_returnrequest_step"),
                *super().get_urls()]

    def has_add_permission(self, request):
        return False  # Shoppers ask for returns from the order page.

    def has_delete_permission(self, request, obj=None):
        return False  # Refuse instead: the shopper is told why.

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "show_save": False,
                         "show_save_and_continue": False, "show_save_and_add_another": False}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_search_results(self, request, queryset, search_term):
        number = numbers.normalize(search_term)
        if number:  # exact, never a regex of typed text
            return queryset.filter(order_number=number), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description="Order")
    def order_link(self, item):
        order = Order.objects.get_by_number(item.order_number)
        if order is None:
            return item.order_number
        return format_html('<a href="{}">{}</a>', reverse("admin:orders_order_change", args=[order.pk]), order.number)

    @admin.display(description="Lines")
    def return_lines(self, item):
        return format_html_join(mark_safe("<br>"), "{} × {} ({})", ((l.qty, l.title, l.sku) for l in item.lines))  # nosec

    @admin.display(description="Refunded")
    def refund_amount(self, item):
        return money(item.amount) if item.status == ReturnRequest.REFUNDED else "—"

    @admin.display(description="Events")
    def event_list(self, item):
        return format_html_join(
            mark_safe("<br>"), "{} UTC · {} by {}{}",  # nosec
            ((e.at.strftime("%Y-%m-%d %H:%M"), e.status, e.by or "?", f": {e.note}" if e.note else "")
             for e in item.events))

    @admin.display(description="Next step")
    def step_buttons(self, item):
        buttons = [(reverse("admin:orders_returnrequest_step", args=[item.pk, step]), step, label)
                   for step, (needs, label, _) in STEPS.items() if item.status == needs]
        if not buttons:
            return "None: this return is " + item.status + "."
        return format_html_join(" ", '<a class="button step-{}" href="{}">{}…</a>',
                                ((step, url, label) for url, step, label in buttons))

    def step_view(self, request, object_id, step):
        """One step of the return (``STEPS``): GET the form (a note; for the refund, the amount in
        words), POST does it (``orders.returns``). Change permission needed."""
        item = self.get_object(request, object_id)
        if item is None or step not in STEPS:
            raise Http404("No such return or step.")
        if not self.has_change_permission(request, item):
            raise PermissionDenied
        needs, label, note_required = STEPS[step]
        back = redirect(reverse("admin:orders_returnrequest_change", args=[item.pk]))
        amount = returns.amount_of(item) if step == "refund" else None
        error = None
        if request.method == "POST":
            note = request.POST.get("note", "").strip()[:1000]
            by = request.user.get_username()
            try:
                if step == "refund":
                    if request.POST.get("confirm") != str(amount):
                        raise OrderError("The amount changed since this page was shown: check it and confirm again.")
                    done = returns.refund(item.pk, by)
                    text = f"{money(done.amount)} refunded, units back in stock."
                elif step == "refuse":
                    returns.refuse(item.pk, by, note)
                    text = "refused; the shopper was told why."
                else:
                    getattr(returns, step)(item.pk, by, note)
                    text = {"approve": "approved", "receive": "marked received"}[step] + "; the shopper was e-mailed."
            except OrderError as refused:
                fresh = ReturnRequest.objects.get_by_id(item.pk)
                if step != "refuse" or fresh.status != needs:
                    self.message_user(request, str(refused), messages.ERROR)
                    return back
                error = str(refused)  # a refusal without its note: the form again
            else:
                self.log_change(request, item, f"{step}: {text}")
                self.message_user(request, f"Return of order {item.order_number}: {text}", messages.SUCCESS)
                return back
        if item.status != needs:
            self.message_user(request, f"This return is {item.status}: nothing to {label.lower()}.", messages.WARNING)
            return back
        return TemplateResponse(request, "admin/orders/returnrequest/step.html", {
            **self.admin_site.each_context(request), "title": f"{label}: return of order {item.order_number}",
            "item": item, "step": step, "label": label, "note_required": note_required, "error": error,
            "amount": amount, "words": in_words(amount) if amount is not None else "", "opts": self.model._meta,
        })
