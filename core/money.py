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


def apportion(amount, weights):
    """Split ``amount`` integer cents over ``weights`` (a list of ints >= 0) pro rata.

    Returns a list of ints, one per weight, summing to ``amount`` exactly: each
    share is rounded down and the rounding remainder goes to the last line with a
    weight (the rule django-oscar and Saleor both follow, written once here). With
    every weight 0 the whole amount goes to the last line; an empty ``weights``
    gives ``[]`` (and ``amount`` must then be 0, else ``ValueError``).
    Used for discounts and tax: each order line stores its share, so that a
    refund of the line gives back exactly what was paid for it.
    """
    amount = int(amount)
    if not weights:
        if amount:
            raise ValueError(f"Cannot apportion {amount} cents over no lines.")
        return []
    total = sum(weights)
    if total <= 0:
        return [0] * (len(weights) - 1) + [amount]
    shares = [amount * int(w) // total for w in weights]
    last = max(i for i, w in enumerate(weights) if w > 0)
    shares[last] += amount - sum(shares)
    return shares


def share_of_units(amount, qty, units, before=0):
    """The part of a line's ``amount`` cents (its discount, tax or price paid) that belongs to
    ``units`` of its ``qty`` units, ``before`` units having been taken already (refunded).

    Exact over any sequence: the shares of a line's units taken in parts always sum
    to ``amount`` (each part is ``floor(amount * (before + units) / qty) -
    floor(amount * before / qty)``). Raises ``ValueError`` when ``before + units``
    exceeds ``qty`` or a count is negative.
    """
    if units < 0 or before < 0 or before + units > qty:
        raise ValueError(f"{units} units after {before} of a line of {qty}.")
    if qty == 0:
        return 0
    return amount * (before + units) // qty - amount * before // qty


def in_words(amount_cents):
    """Integer cents as English words for a confirmation: 500 -> ``"five dollars, zero cents"``
    (num2words' USD currency form), so that "5" and "500" cannot be mistaken for each other."""
    from num2words import num2words

    return num2words(dollars(amount_cents), to="currency", lang="en", currency=CURRENCY)
