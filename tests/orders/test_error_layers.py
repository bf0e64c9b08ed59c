"""Checkout's errors are a family of their own, apart from the inventory's and the payment provider's."""

import inspect

import pytest

from inventory import exceptions as inventory_errors
from orders import exceptions as order_errors
from orders.payments import PaymentError

CHECKOUT_ERRORS = [cls for _, cls in inspect.getmembers(order_errors, inspect.isclass)
                   if issubclass(cls, order_errors.CheckoutError)]


@pytest.mark.parametrize("error", CHECKOUT_ERRORS, ids=lambda cls: cls.__name__)
def test_no_checkout_error_is_an_inventory_or_payment_error(error):
    assert not issubclass(error, (inventory_errors.InventoryError, PaymentError))


def test_each_checkout_outcome_is_its_own_branch():
    # A view's except clauses cannot shadow one another: no outcome derives from another.
    outcomes = [order_errors.CheckoutRefused, order_errors.PricesChanged,
                order_errors.PaymentInProgress, order_errors.PaymentActionRequired]
    for one in outcomes:
        assert [other for other in outcomes if other is not one and issubclass(one, other)] == []
    assert {cls.__name__ for cls in CHECKOUT_ERRORS} >= {"EmptyCart", "CartChanged", "AttemptFenced"}
