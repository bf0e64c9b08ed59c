"""Collecting payment at checkout: a small provider interface and the shop's test provider.

``settings.PAYMENT_PROVIDER`` is the dotted path of the provider class;
``get_provider()`` makes one. A provider has two methods:

* ``charge(amount, card, reference) -> str``: take ``amount`` cents from
  ``card`` (a ``Card``) for the cart ``reference``; returns the provider's
  charge id. Raises ``PaymentDeclined`` (the message is for the shopper) or
  ``PaymentError`` (the provider failed; nothing was charged).
* ``refund(charge_id)``: give a charge back (checkout does this when the
  cart expired while the payment was being taken).

``TestProvider`` is what payment providers offer as a test mode: it never
moves money and answers by card number.
"""

import threading
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.utils.module_loading import import_string


class PaymentError(Exception):
    """The provider could not take the payment; ``str()`` is a message for the shopper."""


class PaymentDeclined(PaymentError):
    """The card was declined; ``str()`` says why, for the shopper."""


@dataclass(frozen=True)
class Card:
    """Card details from the checkout form: ``number`` (digits only), expiry month/year, ``cvc``, holder ``name``."""

    number: str
    exp_month: int
    exp_year: int
    cvc: str
    name: str

    @property
    def last4(self):
        """The last 4 digits: all of the number an order keeps."""
        return self.number[-4:]

    @property
    def brand(self):
        """The card network by the number's issuer prefix (IIN): "Visa", "Mastercard"... or "Card"."""
        number = self.number
        if number.startswith("4"):
            return "Visa"
        if 51 <= int(number[:2] or 0) <= 55 or 2221 <= int(number[:4] or 0) <= 2720:
            return "Mastercard"
        if number[:2] in ("34", "37"):
            return "American Express"
        if number.startswith(("6011", "65")) or 644 <= int(number[:3] or 0) <= 649:
            return "Discover"
        return "Card"


class PaymentProvider:
    """The interface checkout calls (see the module docstring)."""

    def charge(self, amount, card, reference):
        raise NotImplementedError

    def refund(self, charge_id):
        raise NotImplementedError


class TestProvider(PaymentProvider):
    """Accepts and declines by card number, as providers' test modes do; moves no money.

    ``4242424242424242`` and ``5555555555554444`` are accepted; the numbers
    of ``DECLINES`` are declined with their reason; any other number is
    declined too (a test mode knows only test cards). Charges and refunds
    are kept in memory (``charges``, ``refunds``) for tests.
    """

    ACCEPTS = frozenset({"4242424242424242", "5555555555554444"})
    DECLINES = {
        "4000000000000002": "Your card was declined.",
        "4000000000009995": "Your card has insufficient funds.",
        "4000000000000069": "Your card has expired.",
        "4000000000000127": "Your card's security code is incorrect.",
    }

    _lock = threading.Lock()
    charges = {}  # charge id -> (amount cents, reference)
    refunds = []  # charge ids

    def charge(self, amount, card, reference):
        if amount <= 0:
            raise PaymentError("Nothing to pay.")
        if card.number not in self.ACCEPTS:
            raise PaymentDeclined(
                self.DECLINES.get(card.number, "Your card was declined (test mode accepts test cards only).")
            )
        charge_id = f"test_{uuid.uuid4().hex}"
        with self._lock:
            self.charges[charge_id] = (amount, reference)
        return charge_id

    def refund(self, charge_id):
        with self._lock:
            self.refunds.append(charge_id)


def get_provider():
    """An instance of ``settings.PAYMENT_PROVIDER`` (a dotted path to a ``PaymentProvider`` class)."""
    return import_string(settings.PAYMENT_PROVIDER)()
