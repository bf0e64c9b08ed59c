"""Discount codes in the Django admin: one code at a time, or a batch of N unique codes made
from one (its rules copied, a CSV of the new codes downloaded at once); the uses of each.

Staff never edit ``used`` or the claims: only checkout claims and releases a use
(``orders.claims``). Search is by exact code or campaign (no regex on typed text).
"""

import csv

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import urlencode
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core import clock

from .models import MAX_LIMIT, GiftCard, GiftCardEntry, Offer, Voucher, normalize
from .reports import campaign_report

MAX_BATCH = 10_000


class VoucherForm(forms.ModelForm):
    """A code's form: a percent is 1 to 100, a fixed amount at least 1 cent; an end after its start."""

    class Meta:
        model = Voucher
        fields = "__all__"

    def clean(self):
        data = super().clean()
        benefit, value = data.get("benefit"), data.get("value") or 0
        if benefit == Voucher.PERCENT and not 1 <= value <= 100:
            self.add_error("value", "A percent off is between 1 and 100.")
        if benefit == Voucher.FIXED and value < 1:
            self.add_error("value", "A fixed amount off is at least 1 cent.")
        if data.get("starts_at") and data.get("ends_at") and data["ends_at"] <= data["starts_at"]:
            self.add_error("ends_at", "The end comes after the start.")
        if data.get("code"):
            data["code"] = normalize(data["code"])
        return data


class BatchForm(forms.Form):
    """A batch: ``count`` new codes starting with ``prefix`` (letters and digits)."""

    count = forms.IntegerField(min_value=1, max_value=MAX_BATCH)
    prefix = forms.RegexField(regex=r"^[A-Za-z0-9]{0,12}$", required=False,
                              error_messages={"invalid": "Letters and digits only, at most 12."})


def codes_csv(filename, rows):
    """An ``HttpResponse`` downloading ``rows`` (code, name, campaign, benefit, value, used, limit,
    ends_at) as CSV."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(["code", "name", "campaign", "benefit", "value", "used", "limit", "ends_at"])
    writer.writerows(rows)
    return response


@admin.register(Voucher)
class VoucherAdmin(admin.ModelAdmin):
    form = VoucherForm
    list_display = ["code", "name", "campaign", "benefit", "value", "used", "limit", "starts_at", "ends_at"]
    list_filter = ["benefit", "once_per_customer", "combinable"]
    search_fields = ["code"]
    search_help_text = "Search by code or campaign (exact)."
    ordering = ["-created_at"]
    list_per_page = 50
    actions = ["download_csv", "campaign_report"]
    readonly_fields = ["used", "uses", "batch_link", "report_link"]
    fieldsets = [
        (None, {"fields": ["code", "name", "campaign", "report_link", "batch_link"]}),
        ("Benefit", {"fields": ["benefit", "value", "min_order", "combinable"]}),
        ("Range (empty include lists: every item)", {
            "description": "Category ids (a category takes its whole subtree), product type names, product ids, "
                           "SKUs; comma separated. An excluded item never gets the discount.",
            "fields": ["include_categories", "include_types", "include_products", "include_skus",
                       "exclude_categories", "exclude_types", "exclude_products", "exclude_skus"]}),
        ("Validity and uses", {"fields": ["starts_at", "ends_at", "limit", "once_per_customer", "used", "uses"]}),
    ]

    def get_search_results(self, request, queryset, search_term):
        term = normalize(search_term)
        if not term:
            return queryset, False
        return queryset.filter(code=term) | queryset.filter(campaign=search_term.strip()), False

    def get_urls(self):
        return [path("<path:object_id>/batch/", self.admin_site.admin_view(self.batch_view),
                     name="promotions_voucher_batch"),
                path("campaign-report/", self.admin_site.admin_view(self.report_view),
                     name="promotions_voucher_report"), *super().get_urls()]

    @admin.display(description="Campaign report")
    def report_link(self, voucher):
        campaign = voucher.campaign or (voucher.code if voucher.pk else "")
        if not campaign:
            return "Save the code first."
        return format_html('<a href="{}?{}">Uses, discount given and revenue of campaign {}</a>',
                           reverse("admin:promotions_voucher_report"), urlencode({"campaign": campaign}), campaign)

    def report_view(self, request):
        """``?campaign=<name>``: the campaign's report (``promotions.reports.campaign_report``):
        its codes' uses, the discount they gave and the revenue of their orders. Two reads.
        Needs the view permission; 404 for a campaign without codes."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        campaign = str(request.GET.get("campaign", "")).strip()[:100]
        report = campaign_report(campaign) if campaign else None
        if report is None or not report.codes:
            raise Http404("No codes in that campaign.")
        return TemplateResponse(request, "admin/promotions/voucher/campaign_report.html", {
            **self.admin_site.each_context(request), "title": f"Campaign {campaign}",
            "report": report, "opts": self.model._meta})

    @admin.display(description="Batch")
    def batch_link(self, voucher):
        if not voucher.pk:
            return "Save the code first; then make a batch of codes with its rules."
        return format_html('<a class="button" href="{}">Make a batch of codes like this one…</a>',
                           reverse("admin:promotions_voucher_batch", args=[voucher.pk]))

    @admin.display(description="Uses (claims)")
    def uses(self, voucher):
        if not voucher.claims:
            return "none"
        # mark_safe of a constant separator (bandit B308 reviewed).
        return format_html_join(mark_safe("<br>"), "{} UTC: cart {} by {}",  # nosec
                                ((c.at.strftime("%Y-%m-%d %H:%M"), c.cart, c.email or c.customer)
                                 for c in voucher.claims))

    def batch_view(self, request, object_id):
        """``count`` new codes with this code's rules (``Voucher.objects.create_batch``), answered
        as a CSV download of the new codes. Needs the add permission."""
        voucher = self.get_object(request, object_id)
        if voucher is None:
            raise Http404("No such code.")
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = BatchForm(request.POST or None, initial={"count": 100, "prefix": voucher.code[:6]})
        if request.method == "POST" and form.is_valid():
            made = Voucher.objects.create_batch(voucher, form.cleaned_data["count"], form.cleaned_data["prefix"])
            campaign = voucher.campaign or voucher.code
            if not voucher.campaign:
                Voucher.objects.filter(pk=voucher.pk).update(campaign=campaign)
            self.log_change(request, voucher, f"made a batch of {len(made)} codes (campaign {campaign})")
            self.message_user(request, f"{len(made)} codes made (campaign {campaign}).", messages.SUCCESS)
            ends = voucher.ends_at.isoformat() if voucher.ends_at else ""
            return codes_csv(f"{campaign}-codes.csv", [
                (code, voucher.name, campaign, voucher.benefit, voucher.value, 0, voucher.limit, ends)
                for code in sorted(made)])
        return TemplateResponse(request, "admin/promotions/voucher/batch.html", {
            **self.admin_site.each_context(request), "title": f"A batch of codes like {voucher.code}",
            "voucher": voucher, "form": form, "opts": self.model._meta, "max_batch": MAX_BATCH,
        })

    @admin.action(description="Report of the selected codes' campaign")
    def campaign_report(self, request, queryset):
        campaigns = sorted({v.campaign or v.code for v in queryset})
        if len(campaigns) != 1:
            self.message_user(request, "Select codes of one campaign (search the campaign, select all).", messages.ERROR)
            return None
        return HttpResponseRedirect(f"{reverse('admin:promotions_voucher_report')}?{urlencode({'campaign': campaigns[0]})}")

    @admin.action(description="Download the selected codes as CSV")
    def download_csv(self, request, queryset):
        return codes_csv("codes.csv", [
            (v.code, v.name, v.campaign, v.benefit, v.value, v.used, v.limit, v.ends_at.isoformat() if v.ends_at else "")
            for v in queryset.order_by("code")])


class OfferForm(forms.ModelForm):
    """An offer's form: a percent 1 to 100; a multibuy pays fewer units than its set; a fixed
    price has a set of at least 2 and a price."""

    class Meta:
        model = Offer
        fields = "__all__"

    def clean(self):
        data = super().clean()
        benefit, value = data.get("benefit"), data.get("value") or 0
        quantity, pay = data.get("quantity") or 0, data.get("pay") or 0
        if benefit == Offer.PERCENT and not 1 <= value <= 100:
            self.add_error("value", "A percent off is between 1 and 100.")
        if benefit == Offer.FIXED and value < 1:
            self.add_error("value", "A fixed amount off is at least 1 cent.")
        if benefit == Offer.MULTIBUY and not (quantity >= 2 and 1 <= pay < quantity):
            self.add_error("pay", "A multibuy is a set of 2 or more units paying fewer (e.g. 3 for 2).")
        if benefit == Offer.FIXED_PRICE and not (quantity >= 2 and value >= 1):
            self.add_error("quantity", "A fixed price is a set of 2 or more units for a price in cents.")
        if data.get("starts_at") and data.get("ends_at") and data["ends_at"] <= data["starts_at"]:
            self.add_error("ends_at", "The end comes after the start.")
        return data


@admin.register(Offer)
class OfferAdmin(admin.ModelAdmin):
    """Automatic offers: applied to every matching cart by priority, no code needed."""

    form = OfferForm
    list_display = ["name", "benefit", "value", "quantity", "pay", "priority", "exclusive", "active",
                    "starts_at", "ends_at"]
    list_filter = ["active", "benefit", "exclusive"]
    ordering = ["-priority"]
    list_per_page = 50


class GiftCardForm(forms.ModelForm):
    """A gift card issued by staff: its code (capitals), balance in cents, expiry. A card's
    balance is set when issued; afterwards only checkout and refunds change it."""

    class Meta:
        model = GiftCard
        fields = ["code", "balance", "expires_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["balance"].disabled = True


@admin.register(GiftCard)
class GiftCardAdmin(admin.ModelAdmin):
    """Gift cards: issue one (code, balance, expiry); see its balance, holds and history."""

    form = GiftCardForm
    list_display = ["code", "balance", "expires_at", "order_number", "sent_to", "created_at"]
    search_fields = ["code"]
    search_help_text = "Search by code (exact)."
    ordering = ["-created_at"]
    readonly_fields = ["card_history", "order_number", "sent_to"]

    def get_search_results(self, request, queryset, search_term):
        term = normalize(search_term)
        return (queryset.filter(code=term) if term else queryset), False

    def save_model(self, request, obj, form, change):
        if not change:
            obj.history = [{"at": clock.now(), "amount": obj.balance, "key": "", "note": f"issued by {request.user}"}]
            obj.history = [GiftCardEntry(**entry) for entry in obj.history]
        super().save_model(request, obj, form, change)

    @admin.display(description="History")
    def card_history(self, card):
        if not card.history:
            return "none"
        # mark_safe of a constant separator (bandit B308 reviewed).
        return format_html_join(mark_safe("<br>"), "{} UTC: {} {}",  # nosec
                                ((e.at.strftime("%Y-%m-%d %H:%M"), e.amount, e.note) for e in card.history))


__all__ = ["VoucherAdmin", "OfferAdmin", "GiftCardAdmin", "MAX_LIMIT"]
