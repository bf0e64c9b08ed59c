"""The refusals of the stock and cart operations (``Inventory.objects``, ``Cart.objects``).

Each ``str()`` is a message fit for a shopper or staff; the storefront words
the ones naming a SKU with the product's title (``inventory.wording``).
"""


class InventoryError(Exception):
    """A cart or stock change that was refused; ``str()`` is a message fit for a shopper or staff."""


class CartInactive(InventoryError):
    """The cart is no longer active (expired, in checkout, complete, merged) or does not
    exist; ``status`` is its status when known (str), else None."""

    def __init__(self, message="Your cart has expired. A new one has been started.", status=None):
        self.status = status
        super().__init__(message)


class InadequateInventory(InventoryError):
    """Not enough available stock; ``available`` is how many units were left (int)."""

    def __init__(self, sku, available):
        self.sku = sku
        self.available = max(available, 0)
        if self.available:
            message = f"Only {self.available} left of {sku}."
        else:
            message = f"{sku} is out of stock."
        super().__init__(message)


class UnknownSku(InventoryError):
    """No inventory document for this SKU: it is not sold (yet)."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} is not for sale.")


class NotInCart(InventoryError):
    """The cart has no line for this SKU."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} is not in your cart.")


class ReservationConflict(InventoryError):
    """A reservation did not hold the quantity its cart line says (a change in flight); retry."""

    def __init__(self, sku):
        self.sku = sku
        super().__init__(f"{sku} was being changed at the same moment. Please try again.")


class LineLimit(InventoryError):
    """A line would hold more than the per-line maximum (``settings.CART_MAX_LINE_QTY``)."""

    def __init__(self, sku, max_qty):
        self.sku = sku
        self.max_qty = max_qty
        super().__init__(f"At most {max_qty} of {sku} in one cart line.")


class StockError(InventoryError):
    """A stock change staff asked for that is refused (below zero, unknown SKU)."""
