"""Collecting payment at checkout: a small provider interface and the shop's test provider.

``settings.PAYMENT_PROVIDER`` is the dotted path of the provider class;
``get_provider()`` makes one. A provider has two methods:

* ``charge(amount, card, reference, idempotency_key) -> str``: take
  ``amount`` cents from ``card`` (a ``Card``) for the cart ``reference``;
  returns the provider's charge id. A retry with the same
  ``idempotency_key`` charges nothing more and answers the same id.
  Raises ``PaymentDeclined`` (the message is for the shopper) or
  ``PaymentError`` (the provider refused; nothing was charged). Any other
  exception (a lost answer) leaves the outcome unknown: ``lookup`` tells.
* ``lookup(idempotency_key) -> dict | None``: the charge made with that
  key (``{id, amount, reference, refunded}``), or None when nothing was
  charged. Recovery (``orders.reconcile``) asks it "was this charged?".
* ``refund(charge_id)``: give a charge back; idempotent.

Methods are named after providers' own (Stripe's ``Idempotency-Key``
header, its PaymentIntent look-up, its refunds). ``TestProvider`` is what
payment providers offer as a test mode: it never moves money and answers
by card number.
"""

import os
import sqlite3
import time
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

    def charge(self, amount, card, reference, idempotency_key):
        raise NotImplementedError

    def lookup(self, idempotency_key):
        raise NotImplementedError

    def refund(self, charge_id):
        raise NotImplementedError


class TestProvider(PaymentProvider):
    """Accepts and declines by card number, as providers' test modes do; moves no money.

    ``4242424242424242`` and ``5555555555554444`` are accepted; the numbers
    of ``DECLINES`` are declined with their reason; any other number is
    declined too (a test mode knows only test cards).

    Its charges live where every process sees them, as a provider's
    dashboard does: an SQLite file (``settings.PAYMENT_TEST_LEDGER``),
    independent of the shop's database, so a charge survives a crash of the
    shop or of its database. A second ``charge`` with the same idempotency
    key answers the first charge's id without charging again, as real
    providers do; ``lookup`` answers by key; ``refund`` is idempotent.
    """

    __test__ = False  # a payment provider, not a pytest class

    ACCEPTS = frozenset({"4242424242424242", "5555555555554444"})
    DECLINES = {
        "4000000000000002": "Your card was declined.",
        "4000000000009995": "Your card has insufficient funds.",
        "4000000000000069": "Your card has expired.",
        "4000000000000127": "Your card's security code is incorrect.",
    }

    def __init__(self, path=None):
        self.path = str(path or settings.PAYMENT_TEST_LEDGER)

    def _connect(self):
        """An SQLite connection to the ledger file, its table created on first use."""
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute(
            "CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE NOT NULL,"
            " amount INTEGER NOT NULL, reference TEXT NOT NULL, refunded INTEGER NOT NULL DEFAULT 0,"
            " created_at REAL NOT NULL)"
        )
        return connection

    def charge(self, amount, card, reference, idempotency_key):
        """Charge ``amount`` cents to ``card`` for cart ``reference``; returns the charge id.

        Raises ``PaymentError`` (nothing to pay) or ``PaymentDeclined``. With an
        ``idempotency_key`` already charged, returns that charge's id and charges nothing.
        """
        if amount <= 0:
            raise PaymentError("Nothing to pay.")
        if card.number not in self.ACCEPTS:
            raise PaymentDeclined(
                self.DECLINES.get(card.number, "Your card was declined (test mode accepts test cards only).")
            )
        connection = self._connect()
        try:
            connection.execute(
                "INSERT OR IGNORE INTO charges (id, idempotency_key, amount, reference, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (f"test_{uuid.uuid4().hex}", idempotency_key, amount, reference, time.time()),
            )
            (charge_id,) = connection.execute(
                "SELECT id FROM charges WHERE idempotency_key = ?", (idempotency_key,)).fetchone()
        finally:
            connection.close()
        return charge_id

    def lookup(self, idempotency_key):
        """The charge made with ``idempotency_key``: ``{id, amount, reference, refunded}``, or None."""
        connection = self._connect()
        try:
            row = connection.execute(
                "SELECT id, amount, reference, refunded FROM charges WHERE idempotency_key = ?",
                (idempotency_key,)).fetchone()
        finally:
            connection.close()
        if row is None:
            return None
        return {"id": row[0], "amount": row[1], "reference": row[2], "refunded": bool(row[3])}

    def refund(self, charge_id):
        """Give charge ``charge_id`` back (idempotent). Raises ``PaymentError`` for an unknown charge."""
        connection = self._connect()
        try:
            changed = connection.execute("UPDATE charges SET refunded = 1 WHERE id = ?", (charge_id,)).rowcount
        finally:
            connection.close()
        if not changed:
            raise PaymentError(f"No charge {charge_id}.")

    def charges(self):
        """Every charge, oldest first: a list of ``{id, idempotency_key, amount, reference, refunded,
        created_at}`` (``created_at``: seconds since the epoch, UTC)."""
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT id, idempotency_key, amount, reference, refunded, created_at FROM charges"
                " ORDER BY created_at, id"
            ).fetchall()
        finally:
            connection.close()
        return [{"id": r[0], "idempotency_key": r[1], "amount": r[2], "reference": r[3], "refunded": bool(r[4]),
                 "created_at": r[5]} for r in rows]


def get_provider():
    """An instance of ``settings.PAYMENT_PROVIDER`` (a dotted path to a ``PaymentProvider`` class)."""
    return import_string(settings.PAYMENT_PROVIDER)()
