"""Money: the shop keeps every amount as integer cents (USD); this module converts at the edges.

``cents`` and ``dollars`` convert between a form's Decimal dollars and stored
cents; ``display`` writes cents for a page ("$12.99"). Nothing here rounds
silently: an amount with more than two decimal places is the form's to refuse.
"""

from decimal import Decimal

CURRENCY = "USD"


def cents(amount):
    """A Decimal (int, float or numeric text) amount of dollars as integer cents: ``Decimal("12.99")`` -> 1299.

    The result is rounded to the nearest cent (half to even), never truncated:
    a float such as SQLite's NUMERIC ``0.29`` is ``0.28999...`` in binary and
    still gives 29. Forms allow two decimal places only.
    """
    return int((Decimal(amount) * 100).to_integral_value())


def dollars(amount_cents):
    """Integer cents as a Decimal amount of dollars with two places: 1299 -> ``Decimal("12.99")``."""
    return (Decimal(amount_cents) / 100).quantize(Decimal("0.01"))


def display(amount_cents):
    """Integer cents as text for a page: 1299 -> ``"$12.99"``, -50 -> ``"-$0.50"``, None or "" -> ``""``."""
    if amount_cents in (None, ""):
        return ""
    amount_cents = int(amount_cents)
    sign = "-" if amount_cents < 0 else ""
    return f"{sign}${abs(amount_cents) // 100:,}.{abs(amount_cents) % 100:02d}"
