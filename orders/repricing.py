"""Honest prices: a cart's lines at the catalog's prices of now, and what changed since the add.

A cart line keeps the price its SKU had when it was added (``details.price``,
the "Inventory Management" use case's cart). Checkout re-reads the current prices of all its lines in
one read (``Product.objects.checkout_facts``) and charges only when the
shopper has seen them: a line whose price moved is a ``PriceChange``, the
cart is repriced (``Cart.objects.reprice_held``, or ``replace_items`` on the
checkout page) and the page shows the old and new prices for the shopper to
confirm (``orders.checkout``, ``orders.views``). All amounts are integer cents.
"""

from dataclasses import dataclass

from catalog.models import Product
from inventory.models import Cart

from . import pricing


@dataclass(frozen=True)
class PriceChange:
    """A cart line whose unit price moved since it was added: ``old`` and ``new`` cents per unit."""

    sku: str
    title: str
    qty: int
    old: int
    new: int

    @property
    def old_subtotal(self):
        """``qty`` times the old unit price, in cents."""
        return self.qty * self.old

    @property
    def new_subtotal(self):
        """``qty`` times the new unit price, in cents."""
        return self.qty * self.new


def current_price(line, prices):
    """The unit price in cents of ``line`` (a raw cart line) now: the catalog's (``prices``:
    ``{sku: cents or None}``), or the line's own when the SKU has no product or no price."""
    price = prices.get(line["sku"])
    return line["details"]["price"] if price is None else price


def reprice(items, prices):
    """The raw cart lines ``items`` (``[{sku, qty, details: {title, price}}]``) at ``prices``
    (``{sku: cents or None}``): ``(items at current prices, [PriceChange, ...])``, in cart order.

    The returned items have the same shape, only ``details.price`` replaced;
    the changes list the lines whose price differs.
    """
    repriced, changes = [], []
    for line in items:
        price = current_price(line, prices)
        if price != line["details"]["price"]:
            changes.append(PriceChange(sku=line["sku"], title=line["details"]["title"], qty=line["qty"],
                                       old=line["details"]["price"], new=price))
        repriced.append({**line, "details": {**line["details"], "price": price}})
    return repriced, changes


@dataclass(frozen=True)
class Quote:
    """What the checkout page shows: ``cart`` (a ``Cart``, its lines at current prices),
    its ``totals`` (``pricing.Priced``) and the ``changes`` (``[PriceChange]``) since the adds."""

    cart: object
    totals: pricing.Totals
    changes: list


def quote(cart, context=None):
    """The checkout page's figures for the active ``cart`` (a ``Cart``) at the prices of now.

    ``context`` a ``pricing.PricingContext`` (codes, address...; None: nothing asked).
    One read (``Product.objects.checkout_facts``); when prices moved, one
    more write gives the cart its new prices (``Cart.objects.replace_items``,
    a compare-and-set on the lines as read: when a change in another tab
    refuses it, checkout's own re-read still catches every difference). The
    ``Cart`` passed in is updated in memory. Returns a ``Quote``.
    """
    items = [{"sku": line.sku, "qty": line.qty, "details": {"title": line.details.title, "price": line.details.price}}
             for line in cart.items]
    facts = Product.objects.checkout_facts([line["sku"] for line in items])
    repriced, changes = reprice(items, {sku: fact.price for sku, fact in facts.items()})
    if changes:
        Cart.objects.replace_items(cart.id, items, repriced)
        for line, new in zip(cart.items, repriced):
            line.details.price = new["details"]["price"]
    lines = [{"sku": line["sku"], "title": line["details"]["title"], "qty": line["qty"],
              "price": line["details"]["price"]} for line in repriced]
    figures = pricing.price(lines, facts, context)
    return Quote(cart=cart, totals=figures, changes=changes)
