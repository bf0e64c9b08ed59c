"""Orders: what a checkout sold, to whom, where it goes, and what happened to it since.

One document per order in ``orders``::

    {_id, number, status, placed_at, cart_id, user_id, name, email,
     lines: [{sku, title, qty, price, weight, discount, tax, tax_rate, shipped}],
     address: {name, line1, line2, city, postcode, country, region},
     billing_address: {same fields} | null,               # null: billed to ``address``
     subtotal, shipping, tax, total,                       # cents
     payment: {reference, brand, last4},                   # never the card number
     history: [{status, at, note}],
     restocked,                                            # a cancellation's units went back
     refunds: [{request, refund_id, amount, by, at, reason, status}],
     refunded,                                             # cents given back so far
     shipments: [{number, lines: [{line, sku, title, qty}], carrier, tracking, shipped_on, by, at}]}

The order number comes from a counter document (``counters``, ``_id:
"order_number"``) incremented atomically (``numbers.py``). Change orders
only through ``Order.objects`` (``managers.py``): its transitions are
conditional single-document updates, so two staff clicking "ship" and
"cancel" at once cannot both win.
"""

from django.db import models
from django.urls import reverse
from django_mongodb_backend.fields import ArrayField, EmbeddedModelArrayField, EmbeddedModelField
from django_mongodb_backend.models import EmbeddedModel

from addresses.formatting import address_lines
from core.money import display

from .managers import OrderManager, PaymentAttemptManager, PaymentEventManager, ledger
from .managers.returns import ReturnRequestManager
from .managers.invoices import InvoiceManager


class Counter(models.Model):
    """A named sequence (``counters {_id: name, seq}``); ``order_number`` numbers the orders.

    Raised only by ``Order.objects.next_number`` (one atomic ``$inc``).
    """

    name = models.CharField(max_length=64, primary_key=True, db_column="_id")
    seq = models.PositiveBigIntegerField(default=0)

    class Meta:
        db_table = "counters"

    def __str__(self):
        return f"{self.name}: {self.seq}"


class OrderLine(EmbeddedModel):
    """A sold line: ``qty`` units of ``sku`` at ``price`` cents each (the price at the time of sale)."""

    sku = models.CharField("SKU", max_length=64)
    title = models.CharField(max_length=300)
    qty = models.PositiveIntegerField()
    price = models.PositiveIntegerField(help_text="cents per unit")
    weight = models.PositiveIntegerField(default=0, help_text="grams per unit")
    # The line's shares of the order's discounts and tax, as charged (orders.pricing):
    # a refund of the line's units gives back exactly these (pricing.refund_of_units).
    discount = models.PositiveIntegerField(default=0, help_text="cents off the whole line")
    tax = models.PositiveIntegerField(default=0, help_text="cents of tax on the whole line")
    tax_rate = models.CharField(max_length=12, blank=True, default="0", help_text="percent, as applied")
    # The tax as applied (taxes.rates): the line's class, and whether its tax was inside the
    # price (prices entered including tax) rather than added on top.
    tax_class = models.CharField(max_length=10, blank=True, default="", help_text="standard, reduced or zero")
    tax_included = models.BooleanField(default=False, help_text="the tax is part of the price")
    # Units of the line sent in shipments so far (0..qty), raised only by Order.objects.add_shipment.
    shipped = models.PositiveIntegerField(default=0, help_text="units shipped so far")
    # Units refunded (orders.refunds.refund_lines) and of those, put back in stock (once each).
    refunded_units = models.PositiveIntegerField(default=0, help_text="units refunded so far")
    restocked = models.PositiveIntegerField(default=0, help_text="units put back in stock")
    # Units held by the shopper's open returns (orders.returns): requested, not refused nor refunded yet.
    return_requested = models.PositiveIntegerField(default=0, help_text="units in open returns")

    @property
    def to_ship(self):
        """Units of the line not shipped yet."""
        return max(0, self.qty - (self.shipped or 0))

    @property
    def subtotal(self):
        """``qty`` times ``price``, in cents."""
        return self.qty * self.price

    @property
    def net(self):
        """The line after its discount, before tax (cents): with ``tax_included``, the part
        of the price that is not tax."""
        return self.subtotal - self.discount - (self.tax if self.tax_included else 0)

    @property
    def paid(self):
        """What the shopper paid for the line: ``net`` plus its ``tax`` (cents)."""
        return self.net + self.tax

    def __str__(self):
        return f"{self.qty} x {self.sku}"


class AppliedDiscount(EmbeddedModel):
    """A discount as applied to an order (a snapshot: later edits of the rule change nothing):
    the ``code`` typed ("" for an automatic offer), the rule's ``name``, its ``kind``
    (e.g. "percent", "fixed", "free_shipping") and the ``amount`` it took off, in cents."""

    code = models.CharField(max_length=64, blank=True, default="")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=30)
    amount = models.PositiveIntegerField(help_text="cents")


class GiftCardPayment(EmbeddedModel):
    """What a gift card paid of an order: ``code`` and ``amount`` cents (a snapshot)."""

    code = models.CharField(max_length=64)
    amount = models.PositiveIntegerField(help_text="cents")


class GiftRecipient(EmbeddedModel):
    """Who gets the gift cards bought on the line ``sku`` (a snapshot of the cart page's form):
    ``email`` the recipient's, ``message`` the buyer's words printed in their e-mail."""

    sku = models.CharField("SKU", max_length=64)
    email = models.EmailField()
    message = models.CharField(max_length=300, blank=True, default="")


class ShippingChoice(EmbeddedModel):
    """The shipping method as applied to an order (a snapshot: editing or deleting the zone or
    the method later changes nothing): its ``code`` (the method's id then), ``name``,
    ``kind`` (standard, express, collection), the ``zone``'s name, ``cents`` (the method's
    price for this order, before any free-shipping code: ``Order.shipping`` is what was
    charged) and the delivery estimate ``days_min``-``days_max`` (working days)."""

    code = models.CharField(max_length=64, blank=True, default="")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=12, blank=True, default="standard")
    zone = models.CharField(max_length=100, blank=True, default="")
    cents = models.PositiveIntegerField(default=0, help_text="cents")
    days_min = models.PositiveIntegerField(default=0)
    days_max = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"{self.name} ({self.zone}), {self.days_min}-{self.days_max} days"


class Address(EmbeddedModel):
    """A shipping address; ``country`` is an ISO 3166-1 alpha-2 code."""

    name = models.CharField(max_length=200)
    line1 = models.CharField("address", max_length=200)
    line2 = models.CharField("address (line 2)", max_length=200, blank=True, default="")
    city = models.CharField(max_length=100)
    postcode = models.CharField(max_length=20, blank=True, default="")
    country = models.CharField(max_length=2)
    # A state, province or county where the country uses one (ISO 3166-2 code after the
    # dash, e.g. "NY"); taxes by region read it (taxes.rates).
    region = models.CharField(max_length=3, blank=True, default="")

    def lines(self):
        """The address as printed on a parcel, in its country's line order ("New York, NY
        10001" in the US, "10115 Berlin" in Germany; ``addresses.formatting``): a list of
        non-empty strings. The order page, the e-mails and the packing slip print these."""
        return address_lines({name: getattr(self, name, "") or "" for name in
                              ("name", "line1", "line2", "city", "postcode", "country", "region")})

    def __str__(self):
        return ", ".join(self.lines())


class Payment(EmbeddedModel):
    """How the order was paid: the provider's ``reference`` and the card's ``brand`` and ``last4``."""

    reference = models.CharField(max_length=100)
    brand = models.CharField(max_length=40, blank=True, default="")
    last4 = models.CharField(max_length=4, blank=True, default="")

    def __str__(self):
        return f"{self.brand} ending {self.last4} ({self.reference})"


class ShipmentLine(EmbeddedModel):
    """Units of one order line in a shipment or a refund: ``line`` its index in ``Order.lines``, ``sku``,
    ``title`` (snapshots), ``qty`` units."""

    line = models.PositiveIntegerField()
    sku = models.CharField("SKU", max_length=64)
    title = models.CharField(max_length=300)
    qty = models.PositiveIntegerField()


class RefundRecord(EmbeddedModel):
    """Money given back on an order: ``amount`` cents, by whom (``by``: a staff username, or
    "stripe" for a refund made in Stripe's dashboard), ``at`` (UTC), ``reason``; ``request`` the
    admin form's one-time key (a second press of that form refunds nothing), ``refund_id``
    Stripe's refund, ``status`` "pending" until Stripe answered, then "succeeded"."""

    request = models.CharField(max_length=64)
    # A refund of lines (refunds.refund_lines): the units per line, and whether they go back
    # to stock: restock "due" until Inventory got them back, then "done" ("" for no restock).
    lines = EmbeddedModelArrayField(ShipmentLine, default=list, blank=True)
    restock = models.CharField(max_length=10, blank=True, default="")
    refund_id = models.CharField(max_length=100, blank=True, default="")
    amount = models.PositiveIntegerField(help_text="cents")
    by = models.CharField(max_length=150)
    at = models.DateTimeField()
    reason = models.CharField(max_length=300, blank=True, default="")
    status = models.CharField(max_length=20, default="pending")
    # The credit note issued for this refund (orders.invoices), "" until it is.
    credit_note = models.CharField(max_length=20, blank=True, default="")


class Shipment(EmbeddedModel):
    """A parcel sent for an order: ``number`` (1, 2, ... within the order), its ``lines``, the
    ``carrier`` (a key of ``settings.SHOP_CARRIERS``), ``tracking`` number, ``shipped_on`` (the
    day it left), ``by`` (staff username) and ``at`` (UTC, when recorded)."""

    number = models.PositiveIntegerField()
    lines = EmbeddedModelArrayField(ShipmentLine, default=list)
    carrier = models.CharField(max_length=40)
    tracking = models.CharField("tracking number", max_length=100, blank=True, default="")
    shipped_on = models.DateField()
    by = models.CharField(max_length=150, blank=True, default="")
    at = models.DateTimeField()

    @property
    def carrier_name(self):
        """The carrier's name as shown to shoppers (``SHOP_CARRIERS``), or its key."""
        from django.conf import settings

        return settings.SHOP_CARRIERS.get(self.carrier, {}).get("name", self.carrier)

    @property
    def tracking_url(self):
        """The carrier's tracking page for ``tracking`` (``SHOP_CARRIERS[carrier]["tracking_url"]``
        with ``{tracking}`` filled in, URL-quoted), or "" when there is none."""
        from urllib.parse import quote

        from django.conf import settings

        pattern = settings.SHOP_CARRIERS.get(self.carrier, {}).get("tracking_url", "")
        if not pattern or not self.tracking:
            return ""
        return pattern.replace("{tracking}", quote(self.tracking, safe=""))

    @property
    def units(self):
        """Units in the parcel."""
        return sum(line.qty for line in self.lines)


class StatusChange(EmbeddedModel):
    """One entry of an order's history: it became ``status`` at ``at`` (UTC); ``note`` says why."""

    status = models.CharField(max_length=20)
    at = models.DateTimeField()
    note = models.CharField(max_length=300, blank=True, default="")


class StaffNote(EmbeddedModel):
    """A note staff wrote on an order (never shown to the shopper): ``text``, ``by``, ``at`` (UTC)."""

    text = models.CharField(max_length=1000)
    by = models.CharField(max_length=150)
    at = models.DateTimeField()


class TimelineEntry:
    """One event of an order's timeline (``Order.timeline``): ``at`` (UTC), ``kind`` ("status",
    "shipment", "refund", "note"), ``text``, ``by`` ("" when unknown), ``public`` (shown to the
    shopper), ``url`` (a tracking link or "")."""

    def __init__(self, at, kind, text, by="", public=True, url=""):
        self.at, self.kind, self.text, self.by, self.public, self.url = at, kind, text, by, public, url


class Order(models.Model):
    """A placed order (see the module docstring for the document).

    ``status``: placed -> paid -> (partly shipped ->) shipped -> delivered, or (before
    shipping) cancelled -> refunded. ``TRANSITIONS`` lists what may follow what. Shipments
    (``Order.objects.add_shipment``) set partly shipped / shipped from the lines' ``shipped``
    units (``status_from_lines``).
    """

    PLACED = "placed"
    PAID = "paid"
    PARTLY_SHIPPED = "partly shipped"
    SHIPPED = "shipped"
    PARTLY_RETURNED = "partly returned"
    RETURNED = "returned"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"
    STATUS_CHOICES = [(s, s) for s in (PLACED, PAID, PARTLY_SHIPPED, SHIPPED, DELIVERED, PARTLY_RETURNED, RETURNED, CANCELLED, REFUNDED)]
    TRANSITIONS = {
        PLACED: (PAID, CANCELLED),
        PAID: (PARTLY_SHIPPED, SHIPPED, CANCELLED),
        PARTLY_SHIPPED: (PARTLY_SHIPPED, SHIPPED),
        SHIPPED: (DELIVERED,),
        CANCELLED: (REFUNDED,),
    }

    number = models.CharField("order number", max_length=20, unique=True)
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default=PLACED)
    placed_at = models.DateTimeField("placed")
    cart_id = models.CharField(max_length=64, unique=True)
    user_id = models.CharField(max_length=64, blank=True, default="", help_text="the shopper's account, if any")
    name = models.CharField("customer", max_length=200)
    email = models.EmailField()
    lines = EmbeddedModelArrayField(OrderLine, default=list)
    address = EmbeddedModelField(Address, null=True, blank=True)
    # The billing address as validated at checkout (a snapshot, as ``address``): the invoice's
    # buyer. None on orders placed without one (before it was asked): ``address`` stands for it.
    billing_address = EmbeddedModelField(Address, null=True, blank=True)
    subtotal = models.PositiveIntegerField(help_text="cents")
    discount = models.PositiveIntegerField(default=0, help_text="cents off the lines (lines.discount summed)")
    discounts = EmbeddedModelArrayField(AppliedDiscount, default=list, blank=True)
    shipping = models.PositiveIntegerField(help_text="cents")
    shipping_tax = models.PositiveIntegerField(default=0, help_text="cents: the part of tax on shipping")
    tax = models.PositiveIntegerField(help_text="cents (lines.tax summed plus shipping_tax)")
    total = models.PositiveIntegerField(help_text="cents")
    # The tax as applied (taxes.rates), kept so that a later edit of a rate changes nothing here.
    tax_included = models.BooleanField(default=False, help_text="the tax is inside the prices (not added)")
    tax_name = models.CharField(max_length=40, blank=True, default="Tax")
    shipping_tax_rate = models.CharField(max_length=12, blank=True, default="0",
                                         help_text="percent: the goods' weighted rate, as applied")
    reverse_charge = models.BooleanField(default=False, help_text="EU reverse charge: VAT due by the buyer")
    vat_number = models.CharField(max_length=20, blank=True, default="", help_text="the buyer's, as checked")
    payment = EmbeddedModelField(Payment, null=True, blank=True)
    # Paid by gift cards (promotions): ``gift_card`` cents of ``total``; the card was charged the rest.
    gift_card = models.PositiveIntegerField(default=0, help_text="cents of the total paid by gift cards")
    gift_cards = EmbeddedModelArrayField(GiftCardPayment, default=list, blank=True)
    # The recipients named for the gift cards bought (orders.gift_cards_sold e-mails them the codes).
    gift_recipients = EmbeddedModelArrayField(GiftRecipient, default=list, blank=True)
    history = EmbeddedModelArrayField(StatusChange, default=list)
    restocked = models.BooleanField(default=False, help_text="a cancellation's units are back in stock")
    refunds = EmbeddedModelArrayField(RefundRecord, default=list, blank=True)
    refunded = models.PositiveIntegerField(default=0, help_text="cents refunded so far (refunds.amount summed)")
    shipments = EmbeddedModelArrayField(Shipment, default=list, blank=True)
    notes = EmbeddedModelArrayField(StaffNote, default=list, blank=True)
    # The shipping method as applied (shipping.rates); None on orders placed before zones.
    shipping_method = EmbeddedModelField(ShippingChoice, null=True, blank=True)
    # The shopper's returns (orders.returns, ``ReturnRequest``): every one's id, and those still
    # holding units (``lines.return_requested``) until refused or refunded.
    return_ids = ArrayField(models.CharField(max_length=24), default=list, blank=True)
    open_returns = ArrayField(models.CharField(max_length=24), default=list, blank=True)
    # The order's invoice (orders.invoices), "" (or absent) until it is issued.
    invoice_number = models.CharField(max_length=20, blank=True, default="")

    @property
    def bill_to(self):
        """The billing address (an ``Address``): ``billing_address``, else the shipping
        ``address`` (None when the order has neither)."""
        return self.billing_address or self.address

    @property
    def billed_elsewhere(self):
        """True when the billing address is not the shipping address (the order page and the
        admin then show both)."""
        if self.billing_address is None or self.address is None:
            return self.billing_address is not None
        return self.billing_address.lines() != self.address.lines()

    @property
    def tax_percent(self):
        """The lines' one tax rate as applied (percent text, e.g. "19"), or "" when they differ."""
        rates = {line.tax_rate for line in self.lines or []}
        return rates.pop() if len(rates) == 1 else ""

    objects = OrderManager()

    class Meta:
        db_table = "orders"
        ordering = ["-placed_at"]
        indexes = [
            models.Index(fields=["user_id", "-placed_at"], name="user_placed_at"),
            models.Index(fields=["status", "placed_at"], name="order_status_placed_at"),
            models.Index(fields=["email"], name="order_email"),
            # Recovery of missing invoices and credit notes (orders.invoices.issue_missing).
            models.Index(fields=["invoice_number", "placed_at"], name="order_invoice_due"),
        ]

    def __str__(self):
        return f"Order {self.number}"

    def get_absolute_url(self):
        return reverse("orders:order", kwargs={"number": self.number})

    @property
    def item_count(self):
        return sum(line.qty for line in self.lines)

    def timeline(self, public_only=False):
        """Every event of the order, oldest first, as ``TimelineEntry``s: its status changes
        (placed, paid, each shipment's status, returns, cancellation), its shipments with
        their tracking links, its refunds, and staff notes (not public). ``public_only``:
        only what the shopper sees."""
        entries = [TimelineEntry(c.at, "status", c.status + (f" ({c.note})" if c.note and c.status != "placed"
                                                              and not c.note.startswith("by ") else ""))
                   for c in self.history or ()]
        for s in self.shipments or ():
            parts = ", ".join(f"{line.qty} x {line.title}" for line in s.lines)
            entries.append(TimelineEntry(s.at, "shipment", f"Shipment {s.number} sent with {s.carrier_name}: {parts}",
                                         s.by, url=s.tracking_url))
        for r in self.refunds or ():
            entries.append(TimelineEntry(r.at, "refund", f"{display(r.amount)} refunded"
                                         + (f": {r.reason}" if r.reason else "")
                                         + ("" if r.status == "succeeded" else f" [{r.status}]"), r.by))
        for n in self.notes or ():
            entries.append(TimelineEntry(n.at, "note", n.text, n.by, public=False))
        if self.return_ids:  # the shopper's returns' events (orders.returns)
            from .returns import timeline_entries
            entries.extend(timeline_entries(self))
        entries.sort(key=lambda e: e.at)
        return [e for e in entries if e.public] if public_only else entries

    @property
    def shopper_timeline(self):
        """``timeline(public_only=True)``, for templates."""
        return self.timeline(public_only=True)

    @staticmethod
    def status_from_lines(shipped):
        """The fulfilment status of lines given as ``[(qty, shipped units), ...]``: "shipped" when
        every unit left, "partly shipped" when some did, else "paid" (nothing shipped yet)."""
        if all(sent >= qty for qty, sent in shipped):
            return Order.SHIPPED
        if any(sent for _, sent in shipped):
            return Order.PARTLY_SHIPPED
        return Order.PAID

    def can_become(self, status):
        """True when ``status`` may follow the current status."""
        return status in self.TRANSITIONS.get(self.status, ())

    @property
    def invoices(self):
        """The order's invoice and credit notes (``Invoice``s), oldest first (one read)."""
        return Invoice.objects.for_order(self.number)


class PaymentAttempt(models.Model):
    """One try at paying for a cart: the payment ledger (``payment_attempts``), written before the charge.

    ``_id`` is the attempt's idempotency key, sent to the provider with the
    charge, so a retry never charges twice and a lost answer can be looked
    up. Besides the fields below, the document keeps ``order``: the order as
    checkout priced it (lines, totals, customer, address, card brand and last
    4, never the card number), so that recovery can place it. ``status``:

    * ``charging``: recorded, the provider is (or was) being called; ``intent_id`` is the
      PaymentIntent, recorded before it is confirmed;
    * ``charged``: the provider took the money (``charge_id``);
    * ``completed``: the order ``order_number`` is placed, the cart complete;
    * ``declined``: the provider refused; nothing was charged;
    * ``void``: never charged (recovery found no charge, or fenced a checkout
      that crashed before recording its attempt);
    * ``refunded``: charged, but the order could not be placed: the money went back.

    ``recovered`` marks the attempts ``reconcile_payments`` finished or refunded,
    with ``note`` saying what it did: staff see them in the admin.
    Written only through ``PaymentAttempt.objects`` (``orders.managers.ledger``).
    """

    STATUS_CHOICES = [(s, s) for s in ledger.STATUSES]

    key = models.CharField("idempotency key", max_length=64, primary_key=True, db_column="_id")
    cart_id = models.CharField(max_length=64)
    intent_id = models.CharField("PaymentIntent", max_length=100, blank=True, default="")
    amount = models.PositiveIntegerField(default=0, help_text="cents")
    status = models.CharField(max_length=20, choices=STATUS_CHOICES)
    charge_id = models.CharField(max_length=100, blank=True, default="")
    order_number = models.CharField(max_length=20, blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    recovered = models.BooleanField(default=False, help_text="finished or refunded by reconcile_payments")
    note = models.CharField(max_length=300, blank=True, default="")

    objects = PaymentAttemptManager()

    class Meta:
        db_table = "payment_attempts"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"], name="attempt_status_age"),
            models.Index(fields=["cart_id"], name="attempt_cart_id"),
        ]

    def __str__(self):
        return f"Payment {self.key} ({self.status})"


class PaymentEvent(models.Model):
    """A Stripe webhook event applied (``payment_events``): its ``_id`` is the event's id, so
    a replayed or re-sent event is applied at most once (``orders.webhooks``)."""

    event_id = models.CharField(max_length=100, primary_key=True, db_column="_id")
    type = models.CharField(max_length=100)
    received_at = models.DateTimeField()

    objects = PaymentEventManager()

    class Meta:
        db_table = "payment_events"

    def __str__(self):
        return f"{self.type} {self.event_id}"


class ReturnLine(EmbeddedModel):
    """Units of one order line in a return: ``line`` its index in ``Order.lines``, ``sku``,
    ``title`` (snapshots), ``qty`` units."""

    line = models.PositiveIntegerField()
    sku = models.CharField("SKU", max_length=64)
    title = models.CharField(max_length=300)
    qty = models.PositiveIntegerField()


class ReturnEvent(EmbeddedModel):
    """One step of a return: it became ``status`` at ``at`` (UTC) by ``by`` (the shopper's
    e-mail or a staff username); ``note`` says why (a refusal's reason, the amount refunded)."""

    status = models.CharField(max_length=20)
    at = models.DateTimeField()
    by = models.CharField(max_length=254, blank=True, default="")
    note = models.CharField(max_length=1000, blank=True, default="")


class ReturnRequest(models.Model):
    """A return a shopper asked for from the order page (``returns``, orders.returns).

    ``status``: requested -> approved or refused; approved -> received -> refunding ->
    refunded (a refusal of the refund by Stripe puts it back to received). Every change is one
    conditional write on the previous status that pushes its ``events`` entry
    (``ReturnRequest.objects.move``). ``refund_request`` is the key of its refund of lines on
    the order (``orders.refunds.refund_lines``); ``amount`` the cents refunded.
    """

    REQUESTED = "requested"
    APPROVED = "approved"
    REFUSED = "refused"
    RECEIVED = "received"
    REFUNDING = "refunding"
    REFUNDED = "refunded"
    STATUS_CHOICES = [(s, s) for s in (REQUESTED, APPROVED, REFUSED, RECEIVED, REFUNDING, REFUNDED)]

    order_number = models.CharField("order", max_length=20)
    user_id = models.CharField(max_length=64, blank=True, default="")
    email = models.EmailField()
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default=REQUESTED)
    lines = EmbeddedModelArrayField(ReturnLine, default=list)
    reason = models.CharField(max_length=20)
    comment = models.CharField(max_length=1000, blank=True, default="")
    requested_at = models.DateTimeField("requested")
    events = EmbeddedModelArrayField(ReturnEvent, default=list)
    refund_request = models.CharField(max_length=64, blank=True, default="")
    amount = models.PositiveIntegerField(default=0, help_text="cents refunded")

    objects = ReturnRequestManager()

    class Meta:
        db_table = "returns"
        ordering = ["-requested_at"]
        indexes = [
            models.Index(fields=["status", "requested_at"], name="return_status_requested"),
            models.Index(fields=["order_number"], name="return_order"),
        ]

    def __str__(self):
        return f"Return of order {self.order_number} ({self.status})"

    @property
    def units(self):
        """Units in the return."""
        return sum(line.qty for line in self.lines)

    @property
    def reason_text(self):
        """The reason as shown (``SHOP_RETURN_REASONS``), or its key."""
        from django.conf import settings

        return settings.SHOP_RETURN_REASONS.get(self.reason, self.reason)
class InvoiceLine(EmbeddedModel):
    """A line of an invoice or credit note, as charged (a snapshot of the order line's stored
    shares): ``qty`` units of ``sku`` ``title`` at ``price`` cents each, ``discount`` cents
    off the line, ``net`` cents before tax, ``tax_rate`` (percent text) and ``tax`` cents,
    ``amount`` (net plus tax) cents. A credit note's lines carry the units refunded."""

    sku = models.CharField("SKU", max_length=64)
    title = models.CharField(max_length=300)
    qty = models.PositiveIntegerField()
    price = models.PositiveIntegerField(help_text="cents per unit")
    discount = models.PositiveIntegerField(default=0, help_text="cents")
    net = models.IntegerField(help_text="cents before tax")
    tax_rate = models.CharField(max_length=12, blank=True, default="0", help_text="percent")
    tax = models.IntegerField(default=0, help_text="cents")
    amount = models.IntegerField(help_text="cents: net plus tax")


class Invoice(models.Model):
    """An invoice (``kind`` "invoice", one per paid order) or a credit note ("credit_note", one
    per refund), in ``invoices``: a snapshot of what was charged or given back, never
    recomputed (orders.invoices builds it; docs/after-the-sale.md#invoices).

    ``number`` is gapless per ``kind`` and ``year``: ``seq`` 1, 2, 3... (INV-2026-000001,
    CN-2026-000001), unique by (kind, year, seq). ``source`` is unique too ("invoice:<order
    number>", "credit:<order number>:<refund request>"): a document is issued once per sale
    or refund, however often issuing is tried. Written only by ``Invoice.objects``.
    """

    INVOICE = "invoice"
    CREDIT_NOTE = "credit_note"
    KIND_CHOICES = [(INVOICE, "invoice"), (CREDIT_NOTE, "credit note")]

    kind = models.CharField(max_length=12, choices=KIND_CHOICES)
    number = models.CharField(max_length=24, unique=True)
    year = models.PositiveIntegerField()
    seq = models.PositiveIntegerField()
    source = models.CharField(max_length=120, unique=True)
    order_number = models.CharField(max_length=20)
    refund_request = models.CharField(max_length=100, blank=True, default="")
    credited_invoice = models.CharField(max_length=24, blank=True, default="",
                                        help_text="a credit note: the invoice it corrects")
    issued_at = models.DateTimeField()
    order_placed_at = models.DateTimeField()
    seller_name = models.CharField(max_length=200)
    seller_address = models.JSONField(default=list, help_text="lines of text")
    seller_vat_number = models.CharField(max_length=30, blank=True, default="")
    seller_details = models.JSONField(default=list, help_text="further legal lines (registration...)")
    buyer_name = models.CharField(max_length=200)
    buyer_email = models.EmailField()
    buyer_address = models.JSONField(default=list, help_text="lines of text")
    buyer_vat_number = models.CharField(max_length=20, blank=True, default="")
    lines = EmbeddedModelArrayField(InvoiceLine, default=list)
    subtotal = models.IntegerField(help_text="cents: the lines' prices")
    discount = models.IntegerField(default=0, help_text="cents")
    shipping = models.IntegerField(default=0, help_text="cents as charged (its tax inside when tax_included)")
    shipping_tax = models.IntegerField(default=0, help_text="cents")
    shipping_tax_rate = models.CharField(max_length=12, blank=True, default="0")
    shipping_name = models.CharField(max_length=100, blank=True, default="", help_text="the method as applied")
    tax = models.IntegerField(default=0, help_text="cents")
    total = models.IntegerField(help_text="cents")
    gift_card = models.IntegerField(default=0, help_text="cents of the total paid by gift cards")
    tax_included = models.BooleanField(default=False)
    tax_name = models.CharField(max_length=40, blank=True, default="Tax")
    reverse_charge = models.BooleanField(default=False)
    currency = models.CharField(max_length=3, default="USD")
    reason = models.CharField(max_length=300, blank=True, default="", help_text="a credit note's")

    objects = InvoiceManager()

    class Meta:
        db_table = "invoices"
        ordering = ["-issued_at"]
        constraints = [models.UniqueConstraint(fields=["kind", "year", "seq"], name="invoice_kind_year_seq")]
        indexes = [models.Index(fields=["order_number", "issued_at"], name="invoice_order")]

    def __str__(self):
        return self.number

    @property
    def is_credit_note(self):
        return self.kind == self.CREDIT_NOTE

    @property
    def title(self):
        """"Invoice" or "Credit note"."""
        return "Credit note" if self.is_credit_note else "Invoice"

    @property
    def filename(self):
        """The PDF's file name, e.g. ``INV-2026-000123.pdf``."""
        return f"{self.number}.pdf"

    @property
    def shipping_net(self):
        """Shipping before its tax (cents): ``shipping`` holds its tax when prices include it."""
        return self.shipping - (self.shipping_tax if self.tax_included else 0)

    @property
    def shipping_amount(self):
        """Shipping with its tax (cents)."""
        return self.shipping_net + self.shipping_tax
