"""core.money: the one conversion between dollars and cents, and the one display."""

from decimal import Decimal

import pytest

from core import money


@pytest.mark.parametrize("amount, expected", [
    (Decimal("12.99"), 1299), ("0.29", 29), (12, 1200),
    # SQLite hands NUMERIC prices back as floats: 0.29 * 100 is 28.999999999999996.
    (0.29, 29), (1.13, 113), (19.99, 1999),
])
def test_cents_of_decimals_text_ints_and_floats(amount, expected):
    assert money.cents(amount) == expected


def test_dollars_and_display():
    assert money.dollars(1299) == Decimal("12.99")
    assert money.display(123456) == "$1,234.56"
    assert money.display(-50) == "-$0.50"
    assert money.display(None) == money.display("") == ""
