"""What a shopper reads when a cart change is refused: the product's title, never a SKU.

The managers' exceptions name SKUs (they serve staff and commands too);
``refusal`` words them for the storefront with the title the view knows.
"""

from .exceptions import InadequateInventory, LineLimit, NotInCart, ReservationConflict, UnknownSku


def refusal(error, title):
    """The message (str) for ``error`` (an ``InventoryError``) about the product ``title``.

    Errors that name no product (an empty or expired cart) keep their own words.
    """
    if isinstance(error, InadequateInventory):
        if error.available:
            return f"Only {error.available} of “{title}” left: your cart was not changed."
        return f"“{title}” is sold out."
    if isinstance(error, LineLimit):
        return f"You can have at most {error.max_qty} of “{title}” in your cart."
    if isinstance(error, NotInCart):
        return f"“{title}” is not in your cart."
    if isinstance(error, UnknownSku):
        return f"“{title}” is not for sale."
    if isinstance(error, ReservationConflict):
        return f"“{title}” was being changed at the same moment. Please try again."
    return str(error)
