"""Inventory and carts ("Inventory Management" use case): stock with embedded reservations, aging carts.

The shapes are ``docs/collections.md``'s ``inventory`` and ``carts``::

    inventory  {_id: sku, qty, stocked, carted: [{qty, cart_id, timestamp}, ...]}
    carts      {_id: random string, status, last_modified,
                items: [{sku, qty, details: {title, price}}, ...], ...}

``qty`` is what is still available; ``carted`` holds what sits in carts
(reservations). ``stocked`` counts every unit ever put on the shelf, so that
``check_inventory`` can verify the invariant
``qty + sum(carted.qty) + sold == stocked`` (``sold`` comes from the lines of
complete carts). Change them only through ``Inventory.objects`` and
``Cart.objects`` (``inventory/managers/``): their operations are the
source's conditional single-document updates.
"""

import secrets

from django.db import models
from django.urls import reverse
from django_mongodb_backend.fields import ArrayField, EmbeddedModelArrayField, EmbeddedModelField
from django_mongodb_backend.models import EmbeddedModel

from .managers import (CartExpiryManager, CartManager, CartRetentionManager, ExpiryRunManager, InventoryManager,
                       ReservationCleanupManager, ReservationReturnManager)


def new_cart_id():
    """An unguessable cart id: 22 URL-safe characters (128 random bits)."""
    return secrets.token_urlsafe(16)


class Reservation(EmbeddedModel):
    """One ``carted`` entry: ``qty`` units of this SKU held by cart ``cart_id`` since ``timestamp`` (UTC)."""

    qty = models.PositiveIntegerField()
    cart_id = models.CharField(max_length=64)
    timestamp = models.DateTimeField()

    def __str__(self):
        return f"{self.qty} in cart {self.cart_id}"


class Inventory(models.Model):
    """The stock of one SKU ("Inventory Management" use case "Schema"): available ``qty`` and the reservations of carts."""

    sku = models.CharField("SKU", max_length=64, primary_key=True, db_column="_id")
    qty = models.IntegerField("available", default=0)
    stocked = models.IntegerField(
        default=0, help_text="Every unit ever stocked (restocks add to it); for check_inventory."
    )
    carted = EmbeddedModelArrayField(Reservation, default=list, blank=True)

    # One manager per job (docs/architecture.md); ``objects``, declared first, is the default.
    objects = InventoryManager()
    cleanup = ReservationCleanupManager()
    returns = ReservationReturnManager()

    class Meta:
        db_table = "inventory"
        verbose_name_plural = "inventory"
        ordering = ["sku"]

    def __str__(self):
        return f"{self.sku}: {self.qty} available"

    @property
    def reserved(self):
        """Units sitting in carts (the sum of ``carted.qty``)."""
        return sum(entry.qty for entry in self.carted)


class LineDetails(EmbeddedModel):
    """What a cart shows of a line without reading the catalog: ``title`` and unit ``price`` in cents."""

    title = models.CharField(max_length=300)
    price = models.PositiveIntegerField(help_text="cents per unit")


class CartLine(EmbeddedModel):
    """A line item: ``qty`` units of ``sku``."""

    sku = models.CharField("SKU", max_length=64)
    qty = models.PositiveIntegerField()
    details = EmbeddedModelField(LineDetails)

    @property
    def subtotal(self):
        """``qty`` times the unit price, in cents."""
        return self.qty * self.details.price

    def __str__(self):
        return f"{self.qty} x {self.sku}"


class Cart(models.Model):
    """A shopping cart ("Inventory Management" use case): it ages, and when too old its reservations return to stock.

    ``status`` goes active -> pending -> complete (checkout), pending ->
    active (payment declined or never taken), active -> expired in one write
    (``expire_carts``, its run kept in ``ExpiryRun`` until the stock is back;
    ``expiring`` is only left by an earlier version's crashed run, which the
    next run finishes; a pending cart is never expired: its payment may be
    taken, and ``reconcile_payments`` settles it), or active -> merging -> merged (its lines combined
    into its account's cart at log-in, ``inventory.merge``). A complete
    cart has its order in ``orders`` (``Order.objects.get_by_cart``).
    ``user_id`` is the shopper's account ("" for a guest's cart).
    ``created_at`` is when it was started: past ``settings.CART_MAX_AGE`` it
    expires however often it is touched (``Cart.expiry.expire``,
    ``expire_past_max_age``).
    """

    ACTIVE = "active"
    PENDING = "pending"
    COMPLETE = "complete"
    EXPIRING = "expiring"
    EXPIRED = "expired"
    MERGING = "merging"
    MERGED = "merged"
    STATUS_CHOICES = [(s, s) for s in (ACTIVE, PENDING, COMPLETE, EXPIRING, EXPIRED, MERGING, MERGED)]

    id = models.CharField(primary_key=True, max_length=64, default=new_cart_id, db_column="_id")
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default=ACTIVE)
    last_modified = models.DateTimeField()
    # When the cart was started (UTC); carts older than settings.CART_MAX_AGE expire however
    # recently touched. None on carts from before it was recorded: their last_modified stands in.
    created_at = models.DateTimeField(null=True, blank=True, editable=False)
    items = EmbeddedModelArrayField(CartLine, default=list, blank=True)
    customer_name = models.CharField(max_length=200, blank=True, default="")
    customer_email = models.EmailField(blank=True, default="")
    payment_reference = models.CharField(max_length=100, blank=True, default="")
    user_id = models.CharField(max_length=64, blank=True, default="", help_text="the shopper's account, if any")
    # The payment attempt (orders.managers.ledger) that holds the cart while it is pending.
    payment_key = models.CharField(max_length=64, blank=True, default="", editable=False)
    # The expiry run that expired this cart (see Cart.expiry.expire; last_modified is its stamp).
    expiry_run = models.CharField(max_length=32, blank=True, default="", editable=False)

    # One manager per job (docs/architecture.md); ``objects``, declared first, is the default.
    objects = CartManager()
    expiry = CartExpiryManager()
    retention = CartRetentionManager()

    class Meta:
        db_table = "carts"
        indexes = [
            models.Index(fields=["status", "last_modified"], name="status_last_modified"),
            models.Index(fields=["user_id", "status"], name="user_status"),
        ]

    def __str__(self):
        return f"Cart {self.id} ({self.status})"

    def get_absolute_url(self):
        return reverse("inventory:cart")

    @property
    def total(self):
        """The sum of the lines' subtotals, in cents."""
        return sum(line.subtotal for line in self.items)

    @property
    def item_count(self):
        """Units in the cart (the sum of the lines' quantities)."""
        return sum(line.qty for line in self.items)

    def line(self, sku):
        """The line of ``sku``, or None."""
        return next((line for line in self.items if line.sku == sku), None)


class ExpiryRun(models.Model):
    """An expiry run not finished yet (``expiry_runs``; ``inventory/managers/runs.py``).

    ``stamp`` is the moment the run started (its carts' ``last_modified``
    once expired); it expires the live carts idle since before ``threshold``
    (None: whatever their age), and the active ones created before ``born_before``
    (``settings.CART_MAX_AGE``; None: no such limit), among ``cart_ids`` (None: every cart). Written
    only by ``ExpiryRun.objects`` for ``Cart.objects``' expiry; a document
    still here is a run that crashed or is running, which the next
    ``expire_carts`` finishes.
    """

    id = models.CharField(primary_key=True, max_length=32, db_column="_id")
    stamp = models.DateTimeField()
    threshold = models.DateTimeField(null=True, blank=True)
    # Also expires the active carts created before this (None: whatever their creation).
    born_before = models.DateTimeField(null=True, blank=True)
    cart_ids = ArrayField(models.CharField(max_length=64), null=True, blank=True)

    objects = ExpiryRunManager()

    class Meta:
        db_table = "expiry_runs"

    def __str__(self):
        return f"expiry run {self.id} started {self.stamp:%Y-%m-%d %H:%M:%S} UTC"
