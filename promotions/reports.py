"""A campaign's report: how its batch of codes did (issue 43, "a report of discounts given per
campaign"), for the admin.

The uses come from the codes themselves (each kept claim names its cart,
``Voucher.objects.campaign_uses``, one read) and the orders from those carts
(``Order.objects.by_carts``, one read on the unique ``cart_id`` index): a claim
whose cart has no order is a checkout under way (or one recovery has not released
yet). All amounts are integer cents.

Orders sit above promotions (``docs/architecture.md``, "Which way imports run"): this
module imports no orders module. Orders hands over its reader of orders by cart at
start-up (``orders.apps.OrdersConfig.ready`` calls ``register``), as the catalog hands the
inventory its reader of products (``inventory/products.py``).
"""

from dataclasses import dataclass, field

from .models import Voucher

_reader = {}


def register(orders_by_carts):
    """Hand over orders' reader: ``orders_by_carts(cart_ids)`` -> the order documents placed
    from those carts (an iterable of str), each a dict with ``cart_id``, ``number``, ``total``
    and ``refunded`` (cents) and ``discounts`` (``[{"code", "amount"}]``), in one read. Called
    by ``orders.apps.OrdersConfig.ready``; a second call replaces the first."""
    _reader["orders_by_carts"] = orders_by_carts


@dataclass
class CampaignReport:
    """``campaign``'s figures: ``codes`` (how many), ``codes_used`` (with at least one order),
    ``uses`` (orders placed with one of its codes), ``pending`` (claims without an order yet),
    ``discount`` (cents its codes took off those orders), ``revenue`` (the orders' totals, cents,
    what the shoppers paid including any gift card), ``refunded`` (cents refunded on them), and
    ``rows``: per code used ``{"code", "uses", "limit", "discount", "revenue", "orders":
    [number, ...]}``, by code."""

    campaign: str
    codes: int = 0
    codes_used: int = 0
    uses: int = 0
    pending: int = 0
    discount: int = 0
    revenue: int = 0
    refunded: int = 0
    rows: list = field(default_factory=list)

    @property
    def net(self):
        """The orders' revenue less what was refunded on them (cents)."""
        return self.revenue - self.refunded


def campaign_report(campaign):
    """The ``CampaignReport`` of ``campaign`` (str). Two reads, whatever the number of codes: the
    codes' uses, then their carts' orders through the reader orders handed over (``register``)."""
    uses = Voucher.objects.campaign_uses(campaign)
    codes = {use["code"] for use in uses}
    orders = {d["cart_id"]: d for d in _reader["orders_by_carts"](cart for use in uses for cart in use["carts"])}
    report = CampaignReport(campaign=campaign, codes=len(uses))
    for use in uses:
        placed = [orders[cart] for cart in use["carts"] if cart in orders]
        report.pending += len(use["carts"]) - len(placed)
        if not placed:
            continue
        discount = sum(int(d.get("amount") or 0) for order in placed for d in order.get("discounts") or []
                       if d.get("code") == use["code"])
        revenue = sum(int(order.get("total") or 0) for order in placed)
        report.rows.append({"code": use["code"], "uses": len(placed), "limit": use["limit"], "discount": discount,
                            "revenue": revenue, "orders": sorted(order["number"] for order in placed)})
        report.codes_used += 1
    # An order that used two codes of the campaign counts once in uses, revenue and refunds.
    placed = {order["cart_id"]: order for order in orders.values()
              if any(d.get("code") in codes for d in order.get("discounts") or [])}
    report.uses = len(placed)
    report.revenue = sum(int(order.get("total") or 0) for order in placed.values())
    report.refunded = sum(int(order.get("refunded") or 0) for order in placed.values())
    report.discount = sum(row["discount"] for row in report.rows)
    return report
