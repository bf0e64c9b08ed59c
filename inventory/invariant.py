"""The stock invariant of every SKU: ``qty + sum(carted.qty) + sold == stocked`` (docs/collections.md).

``check_invariant`` reads through ``Inventory.objects`` and ``Cart.objects``;
the units sold come from the caller (``sold_by_sku``), since they live in
the orders, which the inventory does not import: ``manage.py check_inventory``
(``orders/management/commands/check_inventory.py``) passes
``Order.objects.sold_by_sku``.
"""

from .managers.recovery import BATCH_SIZE, batched
from .models import Cart, Inventory


def check_invariant(sold_by_sku, attempts=3):
    """Check ``qty + sum(carted.qty) + sold == stocked`` for every SKU.

    ``sold_by_sku()`` answers ``{sku: units}`` sold: the lines of orders whose
    stock was not returned (``Order.objects.sold_by_sku``); a reservation of
    a complete cart is already counted there (checkout's pull may not have
    run yet) and is not counted twice. Also checked: ``qty >= 0``, every
    reservation positive, at most one reservation per cart. The reads are
    not one snapshot, so a SKU that fails is checked again (up to
    ``attempts`` passes) and reported only if it fails every time: a
    checkout completing between the reads cannot raise a false alarm twice
    in a row. Each pass: one read of the stock, one of the carts' statuses
    per ``BATCH_SIZE`` carts, and ``sold_by_sku()``. Returns
    ``[(sku, reason), ...]`` sorted by SKU, empty when it holds.
    """
    suspects = None
    for _attempt in range(attempts):
        documents = Inventory.objects.stock_levels(None if suspects is None else sorted(suspects))
        cart_ids = {e["cart_id"] for d in documents for e in d.get("carted", [])}
        statuses = {}
        for batch in batched(cart_ids, BATCH_SIZE):
            statuses.update(Cart.objects.statuses(batch))
        sold = sold_by_sku()
        problems = {}
        for document in documents:
            sku, carted = document["_id"], document.get("carted", [])
            reserved = sum(e["qty"] for e in carted if statuses.get(e["cart_id"]) != Cart.COMPLETE)
            holders = [e["cart_id"] for e in carted]
            stocked = document.get("stocked", 0)
            units = document["qty"] + reserved + sold.get(sku, 0)
            if document["qty"] < 0:
                problems[sku] = f"available qty is negative ({document['qty']})"
            elif any(e["qty"] <= 0 for e in carted):
                problems[sku] = "a reservation holds no units"
            elif len(holders) != len(set(holders)):
                problems[sku] = "a cart holds two reservations"
            elif units != stocked:
                problems[sku] = (
                    f"available {document['qty']} + reserved {reserved} + sold "
                    f"{sold.get(sku, 0)} = {units}, but {stocked} were stocked"
                )
        if suspects is None:
            known = {d["_id"] for d in documents}
            for sku in set(sold) - known:
                problems[sku] = f"{sold[sku]} sold but no inventory document"
        if not problems:
            return []
        suspects = set(problems)
    return sorted(problems.items())
