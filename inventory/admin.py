"""Stock and carts in the Django admin ("Inventory Management" use case), changed only through the inventory managers.

Stock: each SKU's available quantity and its reservations (cart, quantity,
age) are read-only; staff set the available quantity, or adjust it by a
number of units, through ``Inventory.objects.set_stock`` / ``adjust_stock``:
atomic, never below zero, reservations untouched. A refusal is a form error
(or, when a shopper changed the stock in between, an error message) and
changes nothing.

Carts: listed by status and age with their lines; the action "Expire now"
returns a cart's reserved stock through ``Cart.expiry.expire_cart``.
Nothing else about a cart is edited here: carts change through the
shopper's operations.

Every change is in Django's LogEntry history; staff without the change
permission can look but not change.
"""

import datetime

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.timesince import timesince

from core.templatetags.money import money

from .exceptions import StockError
from .models import Cart, Inventory


#: The most units staff may set, add or write off at once.
MAX_STOCK = 1_000_000


class StockChangeForm(forms.ModelForm):
    """Set the available quantity of a SKU, or adjust it by a number of units (exactly one).

    Checked against the quantity read with the page (a set below zero, an
    adjustment taking more than is available, are form errors); the
    manager's conditional write checks again.
    """

    # Bounded (a form error beyond): MongoDB's integers are 64-bit, a larger one was a 500.
    set_qty = forms.IntegerField(
        label="Set available to", min_value=0, max_value=MAX_STOCK, required=False,
        help_text="The new number of units available (reservations in carts are not counted).",
    )
    adjust_by = forms.IntegerField(
        label="Or adjust available by", min_value=-MAX_STOCK, max_value=MAX_STOCK, required=False,
        help_text="Units to add (e.g. 5) or to write off (e.g. -2); never below zero.",
    )

    class Meta:
        model = Inventory
        fields = []

    def clean(self):
        cleaned = super().clean()
        set_qty, adjust_by = cleaned.get("set_qty"), cleaned.get("adjust_by")
        if self.errors:
            return cleaned
        if (set_qty is None) == (adjust_by is None):
            raise forms.ValidationError("Either set the available quantity or adjust it, not both.")
        if adjust_by == 0:
            self.add_error("adjust_by", "Adjust by at least one unit.")
        elif adjust_by is not None and self.instance.qty + adjust_by < 0:
            self.add_error("adjust_by", f"Only {self.instance.qty} available: cannot remove {-adjust_by}.")
        return cleaned


class StockLevelFilter(admin.SimpleListFilter):
    """SKUs out of stock, or with a few units left."""

    title = "available"
    parameter_name = "available"

    def lookups(self, request, model_admin):
        return [("0", "out of stock"), ("low", "5 or fewer")]

    def queryset(self, request, queryset):
        if self.value() == "0":
            return queryset.filter(qty__lte=0)
        if self.value() == "low":
            return queryset.filter(qty__lte=5)
        return queryset


@admin.register(Inventory)
class InventoryAdmin(admin.ModelAdmin):
    """Each SKU's stock: read-only quantities and reservations; set/adjust through the manager."""

    form = StockChangeForm
    list_display = ["sku", "qty", "reserved_units", "reservation_count"]
    list_filter = [StockLevelFilter]
    search_fields = ["sku"]
    search_help_text = "Search SKUs."
    list_per_page = 100
    readonly_fields = ["sku", "qty", "reserved_units", "stocked", "reservations"]

    def get_fieldsets(self, request, obj=None):
        sets = [
            (None, {"fields": ["sku", "qty", "reserved_units", "stocked"]}),
            ("Reservations", {"fields": ["reservations"]}),
        ]
        if obj is not None and self.has_change_permission(request, obj):
            sets.append(("Change the available stock", {
                "fields": ["set_qty", "adjust_by"],
                "description": "Atomic, never below zero; the reservations stay as they are.",
            }))
        return sets

    def has_add_permission(self, request):
        return False  # Stock documents come with the catalog (load_catalog --stock, restock).

    def has_delete_permission(self, request, obj=None):
        return False  # The stock invariant needs every SKU's document.

    @admin.display(description="Reserved")
    def reserved_units(self, stock):
        return stock.reserved

    @admin.display(description="Carts holding it")
    def reservation_count(self, stock):
        return len(stock.carted)

    @admin.display(description="Reservations (cart, quantity, age)")
    def reservations(self, stock):
        if not stock.carted:
            return "None."
        rows = format_html_join(
            "", '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td></tr>',
            ((reverse("admin:inventory_cart_change", args=[entry.cart_id]), entry.cart_id,
              entry.qty, timesince(entry.timestamp)) for entry in stock.carted),
        )
        return format_html(
            '<table class="reservations"><thead><tr><th>Cart</th><th>Quantity</th><th>Age</th>'
            "</tr></thead><tbody>{}</tbody></table>", rows,
        )

    def save_model(self, request, obj, form, change):
        """Set or adjust the available quantity through ``Inventory.objects`` (one atomic write)."""
        data = form.cleaned_data
        before = obj.qty
        if data.get("set_qty") is not None:
            after = Inventory.objects.set_stock(obj.sku, data["set_qty"])
        else:
            after = Inventory.objects.adjust_stock(obj.sku, data["adjust_by"])
        obj.qty = after
        form.stock_change = (before, after)

    def construct_change_message(self, request, form, formsets, add=False):
        before, after = getattr(form, "stock_change", (None, None))
        return f"Available stock set from {before} to {after}."

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """The change view; a change the manager refuses (stock changed meanwhile) becomes a message."""
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except StockError as error:
            self.message_user(request, f"Nothing was changed: {error}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


class CartAgeFilter(admin.SimpleListFilter):
    """Carts by how long they have been left unchanged (``last_modified``)."""

    title = "unchanged for"
    parameter_name = "age"
    AGES = {
        "15m": ("over 15 minutes", datetime.timedelta(minutes=15)),
        "1h": ("over an hour", datetime.timedelta(hours=1)),
        "1d": ("over a day", datetime.timedelta(days=1)),
    }

    def lookups(self, request, model_admin):
        timeout = datetime.timedelta(seconds=settings.CART_TIMEOUT)
        return [("timeout", f"past the cart timeout ({timesince(timezone.now() - timeout)})"),
                *((key, label) for key, (label, _age) in self.AGES.items())]

    def queryset(self, request, queryset):
        if self.value() == "timeout":
            age = datetime.timedelta(seconds=settings.CART_TIMEOUT)
        elif self.value() in self.AGES:
            age = self.AGES[self.value()][1]
        else:
            return queryset
        return queryset.filter(last_modified__lt=timezone.now() - age)


@admin.register(Cart)
class CartAdmin(admin.ModelAdmin):
    """Carts: by status and age, with their lines; "Expire now" returns their stock."""

    # Fits 1280 px beside the admin's navigation and filters: the id shortened, the customer's
    # name and email in one column, the age instead of the date (the date is on the cart's page).
    list_display = ["short_id", "status", "customer", "age", "units", "total_price"]
    list_display_links = ["short_id"]
    list_filter = ["status", CartAgeFilter]
    search_fields = ["id", "customer_name", "customer_email"]
    search_help_text = "Search cart ids, customer names and emails."
    # No shop page shows a given cart to staff (/cart/ is the visitor's own cart, an order page
    # only the session that placed it), so no "View on site" link.
    view_on_site = False
    ordering = ["-last_modified"]
    list_per_page = 100
    actions = ["expire_now"]
    fields = ["id", "status", "user_id", "created_at", "last_modified", "age", "lines", "total_price",
              "customer_name", "customer_email", "payment_reference"]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False  # Shoppers start carts.

    def has_delete_permission(self, request, obj=None):
        return False  # A cart's reservations must go back to stock: expire it instead.

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # Everything is read-only: no save buttons.
        extra_context = {**(extra_context or {}), "show_save": False,
                         "show_save_and_continue": False, "show_save_and_add_another": False}
        return super().changeform_view(request, object_id, form_url, extra_context)

    class Media:
        css = {"all": ["shop/admin/lists.css"]}

    @admin.display(description="Cart", ordering="id")
    def short_id(self, cart):
        """The cart id's first 8 characters (the whole id is on the cart's page)."""
        return cart.id if len(cart.id) <= 9 else f"{cart.id[:8]}…"

    @admin.display(description="Customer", ordering="customer_name")
    def customer(self, cart):
        """Name and email given at checkout, one above the other; "-" before checkout."""
        if not (cart.customer_name or cart.customer_email):
            return "-"
        return format_html('{}<br><span class="quiet">{}</span>', cart.customer_name, cart.customer_email)

    @admin.display(description="Unchanged for", ordering="last_modified")
    def age(self, cart):
        return timesince(cart.last_modified)

    @admin.display(description="Units")
    def units(self, cart):
        return cart.item_count

    @admin.display(description="Total")
    def total_price(self, cart):
        return money(cart.total)

    @admin.display(description="Lines")
    def lines(self, cart):
        if not cart.items:
            return "None."
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((line.sku, line.details.title, line.qty, money(line.details.price), money(line.subtotal))
             for line in cart.items),
        )
        return format_html(
            '<table class="lines"><thead><tr><th>SKU</th><th>Title</th><th>Quantity</th>'
            "<th>Price</th><th>Subtotal</th></tr></thead><tbody>{}</tbody></table>", rows,
        )

    @admin.action(description="Expire now (return their stock)", permissions=["change"])
    def expire_now(self, request, queryset):
        """Expire the selected active carts through ``Cart.expiry.expire_cart``; others are left alone."""
        expired, left = 0, 0
        for cart in queryset:
            if Cart.expiry.expire_cart(cart.pk):
                expired += 1
                self.log_change(request, cart, "Expired now; its reserved stock went back.")
            else:
                left += 1
        if expired:
            self.message_user(request, f"{expired} cart(s) expired; their stock went back.", messages.SUCCESS)
        if left:
            self.message_user(request, f"{left} cart(s) were not active (a pending cart is settled by reconcile_payments): "
                              "left as they were.",
                              messages.WARNING)
