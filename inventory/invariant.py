"""The stock invariant of every SKU: ``qty + sum(carted.qty) + sold == stocked`` (docs/collections.md).

``check_invariant`` reads through ``Inventory.objects`` and ``Cart.objects``;
the units sold come from the caller (``sold_by_sku``), since they live in
the orders, which the inventory does not import: ``manage.py check_inventory``
(``orders/management/commands/check_inventory.py``) passes
``Order.objects.sold_by_sku``.
"""

from .managers.rules import BATCH_SIZE, IDS_PER_READ, batched
from .models import Cart, Inventory


def _problem(document, statuses, sold):
    """What is wrong with one SKU's raw inventory ``document`` (a str), or None."""
    carted = document.get("carted", [])
    reserved = sum(e["qty"] for e in carted if statuses.get(e["cart_id"]) != Cart.COMPLETE)
    holders = [e["cart_id"] for e in carted]
    stocked = document.get("stocked", 0)
    units = document["qty"] + reserved + sold
    if document["qty"] < 0:
        return f"available qty is negative ({document['qty']})"
    if any(e["qty"] <= 0 for e in carted):
        return "a reservation holds no units"
    if len(holders) != len(set(holders)):
        return "a cart holds two reservations"
    if units != stocked:
        return f"available {document['qty']} + reserved {reserved} + sold {sold} = {units}, but {stocked} were stocked"
    return None


def _check_pass(skus, sold, progress):
    """One streamed pass over the stock of ``skus`` (None: every SKU): ``{sku: reason}``."""
    problems = {}
    unseen = set(sold) if skus is None else {sku for sku in skus if sku in sold}
    for batch in batched(Inventory.objects.stock_levels(skus, BATCH_SIZE), BATCH_SIZE):
        statuses = {}
        for ids in batched({e["cart_id"] for d in batch for e in d.get("carted", [])}, IDS_PER_READ):
            statuses.update(Cart.objects.statuses(ids))
        for document in batch:
            unseen.discard(document["_id"])
            reason = _problem(document, statuses, sold.get(document["_id"], 0))
            if reason:
                problems[document["_id"]] = reason
        if progress is not None:
            progress(len(batch))
    for sku in unseen:
        problems[sku] = f"{sold[sku]} sold but no inventory document"
    return problems


def check_invariant(sold_by_sku, attempts=3, progress=None):
    """Check ``qty + sum(carted.qty) + sold == stocked`` for every SKU.

    ``sold_by_sku()`` answers ``{sku: units}`` sold: the lines of orders whose
    stock was not returned (``Order.objects.sold_by_sku``); a reservation of
    a complete cart is already counted there (checkout's pull may not have
    run yet) and is not counted twice. Also checked: ``qty >= 0``, every
    reservation positive, at most one reservation per cart. The reads are
    not one snapshot, so a SKU that fails is checked again (up to
    ``attempts`` passes) and reported only if it fails every time: a
    checkout completing between the reads cannot raise a false alarm twice
    in a row. The first pass streams every SKU's stock ``BATCH_SIZE``
    documents at a time (bounded memory): ``sold_by_sku()``, then per batch
    one round trip of the stock and one of the carts' statuses per
    ``IDS_PER_READ`` carts holding reservations (``managers.rules``: small
    ``$in`` lists, which the local server matches in n * n);
    ``progress(n)``, when given, is called
    after each batch of that pass. Returns ``[(sku, reason), ...]`` sorted by
    SKU, empty when it holds.
    """
    problems = _check_pass(None, sold_by_sku(), progress)
    for _attempt in range(attempts - 1):
        if not problems:
            return []
        suspects, sold = sorted(problems), sold_by_sku()
        problems = _check_pass(suspects, sold, None)
    return sorted(problems.items())
