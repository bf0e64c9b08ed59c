"""The refusals of the orders app: order status changes and checkout.

Each ``str()`` is a message fit for a shopper or staff. The checkout
refusals subclass ``inventory.exceptions.InventoryError``, as the cart's
own (``CartInactive``...) do, so that a page catching a refused cart
catches them too.
"""

from inventory.exceptions import InventoryError


class OrderError(Exception):
    """An order change that was refused; ``str()`` is a message fit for a shopper or staff."""


class InvalidTransition(OrderError):
    """The order is not in a status the requested one may follow (someone changed it meanwhile)."""

    def __init__(self, number, status, wanted):
        self.number, self.status, self.wanted = number, status, wanted
        super().__init__(f"Order {number} is {status}: it cannot become {wanted}.")


class EmptyCart(InventoryError):
    """Checkout of a cart without lines."""

    def __init__(self):
        super().__init__("Your cart is empty.")


class CartChanged(InventoryError):
    """The cart's lines and its reservations differ (a change in flight): checkout refused, retry."""

    def __init__(self):
        super().__init__("Your cart was changing while you checked out. Please review it and try again.")


class AttemptFenced(InventoryError):
    """``reconcile_payments`` voided this checkout's payment attempt before it was recorded
    (the checkout stalled past ``PAYMENT_RECOVERY_AFTER``): nothing was charged."""

    def __init__(self):
        super().__init__("Your checkout took too long and was stopped. Nothing was charged; please try again.")


class PaymentInProgress(InventoryError):
    """The cart's payment is being taken or confirmed elsewhere (another tab, or recovery):
    the shopper is sent to the checkout's status page, which shows the outcome."""

    def __init__(self, cart_id):
        self.cart_id = cart_id
        super().__init__("Your payment is being confirmed.")


class PricesChanged(InventoryError):
    """Checkout found prices that the shopper has not seen: nothing was charged.

    ``changes``: the ``orders.repricing.PriceChange`` of each line whose
    price moved since it was added (the cart now holds the new prices; empty
    when only the total the shopper confirmed differs, e.g. a quantity
    changed in another tab); ``total``: the new total in cents. The checkout
    page shows them and the shopper confirms by paying again.
    """

    def __init__(self, changes, total):
        self.changes, self.total = list(changes), total
        what = "Prices in your cart have changed" if self.changes else "Your cart's total has changed"
        super().__init__(f"{what}. Nothing was charged: check the new total and pay again to confirm.")


class PaymentActionRequired(InventoryError):
    """The bank asks the shopper to authenticate (3-D Secure): the page finishes it with Stripe.js
    using ``client_secret``, then the server reads the intent again (``checkout.finish_payment``).
    ``key`` is the payment attempt's."""

    def __init__(self, key, client_secret):
        self.key, self.client_secret = key, client_secret
        super().__init__("Your bank asks you to confirm this payment.")
