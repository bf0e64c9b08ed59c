"""Discount codes (vouchers): one document per code in ``vouchers``::

    {_id, code, name, campaign, benefit, value,            # value: percent, or cents
     include_categories, include_types, include_products, include_skus,
     exclude_categories, exclude_types, exclude_products, exclude_skus,
     min_order, starts_at, ends_at,                        # cents; UTC
     limit, used, once_per_customer, combinable,
     claims: [{cart, key, customer, email, at}], created_at}

``used`` counts the ``claims``; both change only together, through
``Voucher.objects.claim`` (one conditional ``update_one``: ``used < limit``,
no claim of this cart, and for a once-per-customer code none of this
customer) and ``release`` (``$pull`` and ``$inc -1``, conditional on the
claim being there). ``limit`` is at most ``MAX_LIMIT``, which bounds the
``claims`` array; a campaign larger than that is a batch of codes
(docs/promotions.md, "The claim").
"""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django_mongodb_backend.fields import ArrayField, EmbeddedModelArrayField
from django_mongodb_backend.models import EmbeddedModel

from .managers import GiftCardManager, OfferManager, VoucherManager

#: The largest use limit of one code: its claims array then stays under ~1 MB.
MAX_LIMIT = 10_000


class VoucherClaim(EmbeddedModel):
    """One use of a code: by checkout attempt ``key`` of cart ``cart``, for ``customer``
    (account id, or the e-mail for a guest) and ``email`` (lower case), at ``at`` (UTC)."""

    cart = models.CharField(max_length=64)
    key = models.CharField(max_length=64)
    customer = models.CharField(max_length=254, blank=True, default="")
    email = models.CharField(max_length=254, blank=True, default="")
    at = models.DateTimeField()


def _ids():
    return ArrayField(models.CharField(max_length=200), default=list, blank=True)


class Voucher(models.Model):
    """A discount code a shopper types on the cart page (see the module docstring)."""

    PERCENT, FIXED, FREE_SHIPPING = "percent", "fixed", "free_shipping"
    BENEFITS = [(PERCENT, "Percent off"), (FIXED, "Fixed amount off (cents)"), (FREE_SHIPPING, "Free shipping")]

    code = models.CharField(max_length=64, unique=True, help_text="what the shopper types; stored in capitals")
    name = models.CharField(max_length=200, help_text="shown on the cart, the order and the e-mail")
    campaign = models.CharField(max_length=100, blank=True, default="", help_text="groups a batch of codes")
    benefit = models.CharField(max_length=20, choices=BENEFITS, default=PERCENT)
    value = models.PositiveIntegerField(default=0, help_text="percent (1-100), or cents for a fixed amount")
    include_categories = _ids()
    include_types = _ids()
    include_products = _ids()
    include_skus = _ids()
    exclude_categories = _ids()
    exclude_types = _ids()
    exclude_products = _ids()
    exclude_skus = _ids()
    min_order = models.PositiveIntegerField(default=0, help_text="cents: the cart's subtotal at least")
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    limit = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1), MaxValueValidator(MAX_LIMIT)],
                                        help_text=f"total uses (at most {MAX_LIMIT}; more: a batch of codes)")
    used = models.PositiveIntegerField(default=0, editable=False)
    once_per_customer = models.BooleanField(default=False, help_text="one use per account or e-mail")
    combinable = models.BooleanField(default=False, help_text="may be used with other codes")
    claims = EmbeddedModelArrayField(VoucherClaim, default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = VoucherManager()

    class Meta:
        db_table = "vouchers"

    def save(self, *args, **kwargs):
        self.code = normalize(self.code)
        super().save(*args, **kwargs)

    def __str__(self):
        return self.code


class Offer(models.Model):
    """An automatic offer: no code needed; applied to every cart it matches, by ``priority``
    (highest first). The ranges, minimum order, dates and the percent / fixed / free-shipping
    benefits are a code's; two more benefits: *multibuy* ("3 for the price of 2": of the
    units in range, every ``quantity``-th set pays ``pay`` units, the cheapest units free) and
    *fixed price* ("any 2 for $20": each set of ``quantity`` units in range, the dearest
    first, costs ``value`` cents). ``exclusive``: when it applies, no other offer and no code
    does (one read of all live offers per priced cart: ``Offer.objects.live``)."""

    PERCENT, FIXED, FREE_SHIPPING, MULTIBUY, FIXED_PRICE = "percent", "fixed", "free_shipping", "multibuy", "fixed_price"
    BENEFITS = [*Voucher.BENEFITS, (MULTIBUY, "Multibuy: quantity for the price of pay"),
                (FIXED_PRICE, "Fixed price: quantity units for value cents")]

    name = models.CharField(max_length=200, help_text='shown on the cart and the order, e.g. "3 for 2 on vinyl"')
    benefit = models.CharField(max_length=20, choices=BENEFITS, default=PERCENT)
    value = models.PositiveIntegerField(default=0, help_text="percent, or cents (fixed amount off, fixed price)")
    quantity = models.PositiveIntegerField(default=0, help_text="multibuy and fixed price: units in a set")
    pay = models.PositiveIntegerField(default=0, help_text="multibuy: units paid of each set")
    include_categories = _ids()
    include_types = _ids()
    include_products = _ids()
    include_skus = _ids()
    exclude_categories = _ids()
    exclude_types = _ids()
    exclude_products = _ids()
    exclude_skus = _ids()
    min_order = models.PositiveIntegerField(default=0, help_text="cents: the cart's subtotal at least")
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    priority = models.IntegerField(default=0, help_text="higher first")
    exclusive = models.BooleanField(default=False, help_text="when it applies, nothing else does")
    active = models.BooleanField(default=True)

    objects = OfferManager()

    class Meta:
        db_table = "offers"
        indexes = [models.Index(fields=["active", "-priority"], name="offers_live")]

    def __str__(self):
        return self.name


class GiftCardEntry(EmbeddedModel):
    """A line of a gift card's history: ``amount`` cents (negative a debit, positive a credit
    or the issue), by checkout attempt ``key`` ("" for staff), at ``at`` (UTC), with a ``note``."""

    at = models.DateTimeField()
    amount = models.IntegerField()
    key = models.CharField(max_length=64, blank=True, default="")
    note = models.CharField(max_length=200, blank=True, default="")


class GiftCardHold(EmbeddedModel):
    """A debit not settled yet: ``amount`` cents taken by checkout attempt ``key``, given back
    (``GiftCard.objects.credit``) if its payment fails, dropped when its order is placed."""

    key = models.CharField(max_length=64)
    amount = models.PositiveIntegerField()


class GiftCard(models.Model):
    """A gift card: ``code`` (what the shopper types), ``balance`` cents, ``expires_at`` (UTC),
    its ``history`` of debits and credits and its open ``holds``. The balance changes only by
    a conditional write (``GiftCard.objects.debit``: ``balance >= amount`` and not expired)."""

    code = models.CharField(max_length=64, unique=True)
    balance = models.PositiveIntegerField(help_text="cents")
    expires_at = models.DateTimeField()
    history = EmbeddedModelArrayField(GiftCardEntry, default=list, blank=True, editable=False)
    holds = EmbeddedModelArrayField(GiftCardHold, default=list, blank=True, editable=False)
    # A card sold as a product (orders/gift_cards_sold.py): the order that bought it and where its code went.
    order_number = models.CharField(max_length=32, blank=True, default="", editable=False)
    sent_to = models.EmailField(blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = GiftCardManager()

    class Meta:
        db_table = "gift_cards"

    def save(self, *args, **kwargs):
        self.code = normalize(self.code)
        super().save(*args, **kwargs)

    def __str__(self):
        return self.code


def normalize(code):
    """A typed code as stored: spaces trimmed, capitals (``" summer10 "`` -> ``"SUMMER10"``)."""
    return (code or "").strip().upper()
