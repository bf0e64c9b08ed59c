"""The cart merge at log-in: the guest cart becomes the account's, combined with its cart.

``merge_guest_cart(guest_cart_id, user_id, max_qty)`` is called when a shopper
signs in (``accounts.signals``). The units of both carts are already
reserved, so combining never needs more stock: a line is cut back only by
the per-line maximum, and the surplus goes back on the shelf in the same
conditional write that moves the reservation. Every step is a conditional
single-document write through the carts' and the inventory's managers:

1. Read the account's active cart (1 read). None: the guest cart is
   claimed for the account (1 write) and that is all.
2. Lock the guest cart, active -> merging (1 write): adds to it are refused
   from now on.
3. Write the combined lines into the account's cart, compare-and-set on the
   lines as read (1 write). Refused (the account's cart changed, or went to
   checkout): the guest cart is unlocked and the whole merge starts
   again (at most ``ATTEMPTS`` times).
4. Move the reservations (``Inventory.objects.move_reservations``: one
   read of the SKUs, then one ``bulk_write`` of compare-and-set writes, one
   per SKU, each replacing the two carts' entries by one) and mark the
   guest cart ``merged`` (1 write).
5. A SKU whose move did not happen (its reservation changed in flight, or
   the guest line never got one) has its line change undone in the
   account's cart, and the guest's reservation, if any, goes back to stock.
   The shopper is told ("could not be moved").

6 round trips whatever the number of lines (step 5 only on a race).
Nothing is reserved twice: a unit leaves the guest's entry in the same
write that adds it to the account's. A crash after step 3 leaves lines
without reservations, which checkout refuses (``CartChanged``), and a
``merging`` guest cart whose reservations ``cleanup_inventory`` returns.
"""

from dataclasses import dataclass, field

from .models import Cart, Inventory

ATTEMPTS = 3


@dataclass
class CartMerge:
    """What the merge did: the account's cart now (``cart_id``, ``count`` units) and the changes.

    ``moved``: ``[(title, qty)]`` lines new to the account's cart;
    ``combined``: ``[(title, added, now)]`` lines added to an existing line;
    ``cut``: ``[(title, wanted, kept)]`` lines cut back to the maximum;
    ``dropped``: ``[title]`` lines that could not be moved.
    """

    cart_id: str | None = None
    count: int = 0
    moved: list = field(default_factory=list)
    combined: list = field(default_factory=list)
    cut: list = field(default_factory=list)
    dropped: list = field(default_factory=list)

    def message(self):
        """One sentence for the shopper, or "" when nothing was combined."""
        parts = [f"{qty} × {title} added" for title, qty in self.moved]
        parts += [f"{title}: {added} added to the {now - added} already there" for title, added, now in self.combined]
        parts += [f"{title} cut to {kept} (at most {kept} per order; you had {wanted})"
                  for title, wanted, kept in self.cut]
        parts += [f"{title} could not be moved and went back on the shelf" for title in self.dropped]
        if not parts:
            return ""
        return "We combined your cart with the one saved in your account: " + "; ".join(parts) + "."


def _units(items):
    return sum(line["qty"] for line in items)


def merge_guest_cart(guest_cart_id, user_id, max_qty):
    """Make the guest cart ``guest_cart_id`` (or None) the account ``user_id``'s; returns a ``CartMerge``.

    See the module docstring for the steps and their costs. ``max_qty`` is
    the per-line maximum (``settings.CART_MAX_LINE_QTY``).
    """
    user_id = str(user_id)
    for _attempt in range(ATTEMPTS):
        target = Cart.objects.active_cart_of(user_id)
        if not guest_cart_id or (target is not None and target["_id"] == guest_cart_id):
            if target is None:
                return CartMerge()
            return CartMerge(target["_id"], _units(target["items"]))
        if target is None:
            claimed = Cart.objects.claim(guest_cart_id, user_id)
            if claimed is None:
                return CartMerge()
            return CartMerge(claimed["_id"], _units(claimed["items"]))
        guest = Cart.objects.lock_for_merge(guest_cart_id, target["_id"])
        if guest is None:  # the guest cart expired or was checked out: the account's cart stays
            return CartMerge(target["_id"], _units(target["items"]))
        result, moves, items = _plan(guest["items"], target["items"], max_qty)
        if not Cart.objects.replace_items(target["_id"], target["items"], items):
            Cart.objects.unlock_merge(guest_cart_id)
            continue
        result.cart_id = target["_id"]
        moved = Inventory.objects.move_reservations(guest_cart_id, target["_id"], moves)
        dropped = {sku for sku, _, _, _ in moves} - moved
        if dropped:
            _undo_failed_moves(guest_cart_id, target["_id"], moves, dropped, guest["items"], result)
        Cart.objects.finish_merge(guest_cart_id)
        result.count = _units(items) - sum(keep - theirs for sku, _, theirs, keep in moves if sku in dropped)
        return result
    # The account's cart kept changing: the shopper keeps the guest cart for now.
    return CartMerge(guest_cart_id, _units(guest["items"]))


def _plan(guest_items, target_items, max_qty):
    """The combined lines and the reservation moves: ``(CartMerge, moves, items)``."""
    result = CartMerge()
    items = [dict(line) for line in target_items]
    by_sku = {line["sku"]: line for line in items}
    moves = []
    for line in guest_items:
        sku, mine, title = line["sku"], line["qty"], line["details"]["title"]
        existing = by_sku.get(sku)
        theirs = existing["qty"] if existing else 0
        keep = min(mine + theirs, max_qty)
        moves.append((sku, mine, theirs, keep))
        if existing:
            existing["qty"] = keep
            result.combined.append((title, keep - theirs, keep))
        else:
            new = {**line, "qty": keep}
            items.append(new)
            by_sku[sku] = new
            result.moved.append((title, keep))
        if keep < mine + theirs:
            result.cut.append((title, mine + theirs, keep))
    return result, moves, items


def _undo_failed_moves(guest_id, target_id, moves, dropped, guest_items, result):
    """Step 5: undo the line changes of the SKUs in ``dropped``; their guest units go back to stock."""
    guest_held = Inventory.objects.reservations_of(guest_id)
    titles = {line["sku"]: line["details"]["title"] for line in guest_items}
    for sku, mine, theirs, keep in moves:
        if sku not in dropped:
            continue
        Cart.objects.shrink_line(target_id, sku, keep - theirs)
        if guest_held.get(sku):
            Inventory.objects.release(guest_id, sku, guest_held[sku])
        title = titles.get(sku, sku)
        result.moved = [(t, q) for t, q in result.moved if t != title]
        result.combined = [c for c in result.combined if c[0] != title]
        result.cut = [c for c in result.cut if c[0] != title]
        result.dropped.append(title)
