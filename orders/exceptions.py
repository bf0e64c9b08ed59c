"""The errors of the orders app, by layer: order status changes, and checkout.

Each ``str()`` is a message fit for a shopper or staff. Checkout's errors
derive from ``CheckoutError`` and from nothing of the inventory's: the cart's
own refusals (``inventory.exceptions``: ``CartInactive``, ``InadequateInventory``...)
and the payment provider's (``orders.payments.PaymentError``) are separate
families, so no ``except`` clause catches another layer's error by accident and
the order of a view's clauses decides nothing. Each leaf is one outcome:

* ``CheckoutRefused`` (``EmptyCart``, ``CartChanged``, ``AttemptFenced``): nothing
  was charged; the shopper goes back to the cart with the message.
* ``PricesChanged``: nothing was charged; the checkout page shows the new prices.
* ``PaymentInProgress``: the payment is being taken elsewhere; the status page tells.
* ``PaymentActionRequired``: the bank asks for 3-D Secure; the page finishes it.
"""


class OrderError(Exception):
    """An order change that was refused; ``str()`` is a message fit for a shopper or staff."""


class InvalidTransition(OrderError):
    """The order is not in a status the requested one may follow (someone changed it meanwhile)."""

    def __init__(self, number, status, wanted):
        self.number, self.status, self.wanted = number, status, wanted
        super().__init__(f"Order {number} is {status}: it cannot become {wanted}.")


class CheckoutError(Exception):
    """Checkout stopped short of a placed order; ``str()`` is a message fit for a shopper."""


class CheckoutRefused(CheckoutError):
    """Checkout refused the cart as it stands: nothing was charged, the shopper reviews the cart."""


class EmptyCart(CheckoutRefused):
    """Checkout of a cart without lines."""

    def __init__(self):
        super().__init__("Your cart is empty.")


class CartChanged(CheckoutRefused):
    """The cart's lines and its reservations differ (a change in flight): checkout refused, retry."""

    def __init__(self):
        super().__init__("Your cart was changing while you checked out. Please review it and try again.")


class AttemptFenced(CheckoutRefused):
    """``reconcile_payments`` voided this checkout's payment attempt before it was recorded
    (the checkout stalled past ``PAYMENT_RECOVERY_AFTER``): nothing was charged."""

    def __init__(self):
        super().__init__("Your checkout took too long and was stopped. Nothing was charged; please try again.")


class PaymentInProgress(CheckoutError):
    """The cart's payment is being taken or confirmed elsewhere (another tab, or recovery):
    the shopper is sent to the checkout's status page, which shows the outcome."""

    def __init__(self, cart_id):
        self.cart_id = cart_id
        super().__init__("Your payment is being confirmed.")


class PricesChanged(CheckoutError):
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


class PaymentActionRequired(CheckoutError):
    """The bank asks the shopper to authenticate (3-D Secure): the page finishes it with Stripe.js
    using ``client_secret``, then the server reads the intent again (``checkout.finish_payment``).
    ``key`` is the payment attempt's."""

    def __init__(self, key, client_secret):
        self.key, self.client_secret = key, client_secret
        super().__init__("Your bank asks you to confirm this payment.")


class CodeRefused(CheckoutRefused):
    """A discount code of the cart could not be claimed at checkout (used up meanwhile, or
    already used by this customer): nothing was charged; ``code`` names it."""

    def __init__(self, code):
        self.code = code
        super().__init__(f"The discount code {code} has just been used up (or already used by you). "
                         "Nothing was charged; your cart is as you left it, without the code.")


class GiftCardRefused(CheckoutRefused):
    """A gift card could not be debited at checkout (spent or expired since the page was shown):
    nothing was charged; ``code`` names it."""

    def __init__(self, code):
        self.code = code
        super().__init__(f"The gift card {code} no longer has the balance shown (or has expired). "
                         "Nothing was charged; your cart is as you left it.")


class ShippingUnavailable(CheckoutRefused):
    """No zone covers the order's destination, or none of its methods is offered to the order
    (its minimum order value): refused before any payment, nothing was charged. ``reason``
    is ``Priced.shipping_refused`` (shipping.rates.refusal)."""

    def __init__(self, reason):
        self.reason = reason
        super().__init__(f"{reason} Nothing was charged.")
