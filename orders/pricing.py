"""What an order costs, line by line, in integer cents: the pricing pipeline.

``price(lines, facts, context)`` runs three steps, in this order, over the
cart's lines at the catalog's prices of now (re-read at checkout:
``orders.repricing``; never a form's):

1. **discounts** (``_discounts``): amounts taken off lines, each apportioned
   to the lines it applies to and stored on them (``PricedLine.discount``);
   a free-shipping benefit takes the shipping off.
2. **shipping** (``_shipping``): the zone covering the address (country,
   postcode prefix) and the method chosen there, or its cheapest
   (``shipping.rates``), priced by the order's weight (sum of ``qty`` x the
   product's ``shipping.weight``, grams) or value in the method's bands; a
   destination no zone covers sets ``shipping_refused`` (checkout refuses it).
3. **tax** (``_tax``), after discounts (tax is charged on what is paid):
   by destination (``taxes.rates.apply_tax``): each line at its tax class's
   rate for the address's country and region (``SHOP_TAX_PERCENT`` where no
   rate is kept), rounded half up per line; shipping at the weighted rate of
   the goods it carries; added on top, or the part inside the prices when
   ``SHOP_PRICES_INCLUDE_TAX``; nothing for an EU business buyer's reverse
   charge. The order's tax is the lines' tax plus the shipping's, to the cent.

Every amount a line carries is stored on the order's line (``OrderLine``
``discount``, ``tax``, ``tax_rate``), so a refund of a line gives back
exactly what was paid for it (``refund_of_units``); rules and rates are
copied onto the order as applied (``Priced.discounts``, ``tax_rate``), so a
later edit never changes a past order. See docs/pricing.md.
"""

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from core.money import share_of_units
from promotions import giftcards, rules
from shipping.rates import apply_shipping
from taxes.rates import apply_tax


@dataclass(frozen=True)
class PricingContext:
    """Who buys and what they asked for, beyond the lines: the pipeline's other inputs.

    ``cart_id`` and ``user_id`` (str, "" for a guest) and ``email``; ``codes`` the
    discount codes typed (tuple of str), ``gift_cards`` the gift card codes; ``address``
    the shipping address (dict of ``Address`` fields, or None); ``shipping_method`` the
    chosen method's code ("" for the default); ``vat_number`` a business buyer's VAT
    number ("" for none); ``at`` the moment priced (UTC datetime, None for now).
    """

    cart_id: str = ""
    user_id: str = ""
    email: str = ""
    codes: tuple = ()
    gift_cards: tuple = ()
    address: dict = None
    shipping_method: str = ""
    vat_number: str = ""
    at: datetime = None


@dataclass
class PricedLine:
    """One line as priced: ``qty`` units of ``sku`` at ``price`` cents each, ``weight`` grams
    each, with what promotions and tax match on (``product_id``, ``product_type``,
    ``listed_in``, ``tax_class``; from ``Product.objects.checkout_facts``) and what the
    steps put on it: ``discount`` (cents off the line, all units), ``discounts``
    (``[(name, cents)]`` the discounts that make it up), ``tax`` (cents, all units) at
    ``tax_rate`` (a percent as text, e.g. "20" or "8.875")."""

    sku: str
    title: str
    qty: int
    price: int
    weight: int = 0
    product_id: object = None
    product_type: str = ""
    listed_in: tuple = ()
    tax_class: str = ""
    discount: int = 0
    discounts: list = field(default_factory=list)
    tax: int = 0
    tax_rate: str = "0"
    tax_included: bool = False

    @property
    def subtotal(self):
        """``qty`` x ``price``: the line before discounts and tax (cents)."""
        return self.qty * self.price

    @property
    def net(self):
        """The line after its discounts, before tax (cents): with prices including tax
        (``tax_included``), the part of the price that is not tax."""
        return self.subtotal - self.discount - (self.tax if self.tax_included else 0)

    @property
    def paid(self):
        """What the shopper pays for the line: net plus its tax (cents)."""
        return self.net + self.tax

    def as_order_line(self):
        """The ``OrderLine`` fields (a dict) stored on the order: the line as sold."""
        return {"sku": self.sku, "title": self.title, "qty": self.qty, "price": self.price,
                "weight": self.weight, "discount": self.discount, "tax": self.tax,
                "tax_rate": self.tax_rate, "tax_class": self.tax_class, "tax_included": self.tax_included}


@dataclass
class Priced:
    """An order's figures in cents (``weight`` in grams): its ``lines`` (``[PricedLine]``),
    ``subtotal`` (lines before discounts), ``discount`` (off the lines), ``shipping`` (after
    any shipping discount), ``shipping_tax`` (the part of ``tax`` on shipping), ``tax``
    (lines' tax plus ``shipping_tax``), ``total`` (what is charged), ``discounts`` (the
    discounts as applied: ``[{"code", "name", "kind", "amount"}]``, copied onto the order),
    ``tax_percent`` (the lines' one rate as text, "" when rates differ), and the tax as
    applied (``taxes.rates``): ``tax_included`` (the tax is inside the prices, not added),
    ``tax_name`` ("VAT", "Sales tax", "Tax"), ``shipping_tax_rate`` (percent text),
    ``reverse_charge`` and ``vat_number`` (an EU business buyer's, compact)."""

    lines: list
    subtotal: int = 0
    discount: int = 0
    shipping: int = 0
    shipping_tax: int = 0
    tax: int = 0
    total: int = 0
    weight: int = 0
    tax_percent: str = ""
    discounts: list = field(default_factory=list)
    tax_included: bool = False
    tax_name: str = "Tax"
    shipping_tax_rate: str = "0"
    reverse_charge: bool = False
    vat_number: str = ""
    # Promotions (promotions.rules): a free-shipping code applies; the codes to claim at
    # checkout ([{"voucher_id", "code", "limit", "once_per_customer"}]).
    free_shipping: bool = False
    claims: list = field(default_factory=list)
    # Gift cards, a payment after tax (promotions.giftcards): what they pay of ``total``
    # ([{"card_id", "code", "amount"}] and the sum), and ``charged``, the rest, to the card.
    gift_cards: list = field(default_factory=list)
    gift_card: int = 0
    charged: int = 0
    # Shipping (shipping.rates): the methods offered for the destination, cheapest first,
    # and the one charged ([{"code", "name", "kind", "zone", "cents", "days_min", "days_max"}]
    # and one of them, copied onto the order), or why nothing can ship there ("" if it can).
    shipping_methods: list = field(default_factory=list)
    shipping_method: dict = None
    shipping_refused: str = ""


# The name the checkout page and older callers know the figures by.
Totals = Priced


def shipping_cost(weight):
    """The shipping cost in cents of a parcel of ``weight`` grams (int >= 0), by ``SHIPPING_BANDS``.

    Raises ``ImproperlyConfigured`` when no band holds the weight (the last
    band should be ``(None, cents)``).
    """
    for limit, cents in settings.SHIPPING_BANDS:
        if limit is None or weight <= limit:
            return int(cents)
    raise ImproperlyConfigured(f"No shipping band for {weight} g: end SHIPPING_BANDS with (None, cents).")


def tax_on(amount, percent=None):
    """``percent`` (default ``SHOP_TAX_PERCENT``) of ``amount`` cents, rounded half up (int cents)."""
    percent = settings.SHOP_TAX_PERCENT if percent is None else percent
    return (amount * percent + 50) // 100


def _discounts(priced, context):
    """Step 1: the discount codes of ``context.codes`` (``promotions.rules.apply``: each
    apportioned to the lines in its range, one read when there are codes)."""
    rules.apply(priced, context)


def _shipping(priced, context):
    """Step 2: shipping by the destination's zone and the chosen method
    (``shipping.rates.apply_shipping``: no round trip when the zones are cached); a
    free-shipping code (step 1) then takes it off. Gift cards sold (promotions) are e-mailed:
    an order of nothing else ships nothing."""
    apply_shipping(priced, context)
    if priced.lines and all(giftcards.is_gift_card(line.product_type) for line in priced.lines):
        priced.shipping, priced.shipping_methods, priced.shipping_method, priced.shipping_refused = 0, [], None, ""
    if priced.free_shipping:  # a free-shipping code (step 1): its amount is the shipping taken off
        for entry in priced.discounts:
            if entry["kind"] == "free_shipping":
                entry["amount"], priced.shipping = priced.shipping, 0


def _tax(priced, context):
    """Step 3: tax by destination, per line, and on shipping at the goods' weighted rate
    (``taxes.rates.apply_tax``; at most one read, the destination's rates)."""
    apply_tax(priced, context)


STEPS = (_discounts, _shipping, _tax)


def price(lines, facts, context=None):
    """The ``Priced`` figures of ``lines`` (``[{sku, title?, qty, price}]``, price in cents per
    unit, as repriced) with ``facts`` (``{sku: SkuFacts}`` from
    ``Product.objects.checkout_facts``; a SKU missing from it weighs 0 and matches no rule)
    for ``context`` (a ``PricingContext``; None: a guest with nothing asked).

    Runs ``STEPS`` in order (discounts, shipping, tax) and adds up. No round trip of its
    own beyond the tax step's read of the destination's rates. The result's amounts satisfy:
    ``total == subtotal - discount + shipping + tax`` (without ``tax`` when ``tax_included``),
    ``discount == sum(line.discount)``, ``tax == sum(line.tax) + shipping_tax``.
    """
    context = context or PricingContext()
    priced_lines = []
    for line in lines:
        fact = facts.get(line["sku"])
        priced_lines.append(PricedLine(
            sku=line["sku"], title=line.get("title", ""), qty=int(line["qty"]), price=int(line["price"]),
            weight=getattr(fact, "weight", 0) or 0, product_id=getattr(fact, "product_id", None),
            product_type=getattr(fact, "product_type", ""), listed_in=getattr(fact, "listed_in", ()),
            tax_class=getattr(fact, "tax_class", "")))
    priced = Priced(lines=priced_lines, subtotal=sum(line.subtotal for line in priced_lines),
                    weight=sum(line.qty * line.weight for line in priced_lines))
    for step in STEPS:
        step(priced, context)
    priced.discount = sum(line.discount for line in priced_lines)
    priced.tax = sum(line.tax for line in priced_lines) + priced.shipping_tax
    priced.total = priced.subtotal - priced.discount + priced.shipping + (0 if priced.tax_included else priced.tax)
    giftcards.apply(priced, context)  # a payment, after tax: ``gift_card`` + ``charged == total``
    return priced


@dataclass(frozen=True)
class _Weight:
    weight: int


def totals(lines, weights):
    """The ``Priced`` figures of ``lines`` (``[{sku, qty, price}]``) with ``weights``
    (``{sku: grams per unit}``) and nothing else known (no promotion, default rules)."""
    return price(lines, {sku: _Weight(weight) for sku, weight in weights.items()})


def refund_of_units(line, units, before=0):
    """What to give back for ``units`` of an order ``line`` (an ``OrderLine`` or a dict with
    ``qty``, ``price``, ``discount``, ``tax``, ``tax_included``), ``before`` of its units already refunded:
    ``{"net": cents, "tax": cents, "amount": cents}``, where ``amount`` is what the shopper
    paid for those units (their share of the line's price less its discount, plus their
    share of its tax). Shares are exact (``core.money.share_of_units``): refunding a line's
    units in any parts gives back exactly what was paid for the line. ``ValueError`` when
    more units are asked than remain."""
    get = line.get if isinstance(line, dict) else (lambda name, default=0: getattr(line, name, default))
    qty = int(get("qty"))
    tax_total = int(get("tax", 0) or 0)
    inside = tax_total if get("tax_included", False) else 0  # prices including tax: net is the rest
    net = share_of_units(qty * int(get("price")) - int(get("discount", 0) or 0) - inside, qty, units, before)
    tax = share_of_units(tax_total, qty, units, before)
    return {"net": net, "tax": tax, "amount": net + tax}


__all__ = ["PricingContext", "PricedLine", "Priced", "Totals", "price", "totals", "refund_of_units",
           "shipping_cost", "tax_on", "STEPS"]
