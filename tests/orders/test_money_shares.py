"""The pricing pipeline's money rules: shares that add up to the cent, stored per line."""

import pytest

from core.money import apportion, share_of_units
from orders import pricing


def test_apportion_is_pro_rata_with_the_remainder_on_the_last_line():
    assert apportion(100, [1, 1, 1]) == [33, 33, 34]
    assert apportion(5, [0, 3, 0]) == [0, 5, 0]
    assert apportion(7, [0, 0]) == [0, 7]
    assert apportion(0, []) == []
    with pytest.raises(ValueError):
        apportion(1, [])


@pytest.mark.parametrize("amount,qty", [(101, 7), (1, 3), (999, 4), (0, 2)])
def test_shares_of_units_taken_in_parts_add_up_to_the_line(amount, qty):
    for parts in ([1] * qty, [qty], [qty - 1, 1] if qty > 1 else [1]):
        before, given = 0, 0
        for units in parts:
            given += share_of_units(amount, qty, units, before)
            before += units
        assert given == amount
    with pytest.raises(ValueError):
        share_of_units(amount, qty, qty, 1)


def test_price_stores_each_lines_tax_and_they_sum_to_the_orders(settings):
    settings.SHOP_TAX_PERCENT = 20
    settings.SHIPPING_BANDS = [(None, 399)]
    figures = pricing.price([{"sku": "A", "qty": 3, "price": 333}, {"sku": "B", "qty": 1, "price": 1}], {})
    assert figures.subtotal == 1000
    assert figures.tax == pricing.tax_on(1000 + 399)
    assert sum(line.tax for line in figures.lines) + figures.shipping_tax == figures.tax
    assert figures.total == figures.subtotal - figures.discount + figures.shipping + figures.tax
    assert [line.tax_rate for line in figures.lines] == ["20", "20"]


def test_refund_of_every_unit_gives_back_what_the_line_paid():
    line = {"qty": 3, "price": 999, "discount": 100, "tax": 580}
    parts = [pricing.refund_of_units(line, 1, before) for before in range(3)]
    assert sum(part["amount"] for part in parts) == 3 * 999 - 100 + 580
    assert sum(part["tax"] for part in parts) == 580
    with pytest.raises(ValueError):
        pricing.refund_of_units(line, 2, before=2)
