"""Fixtures of the orders tests."""

import pytest

from inventory.models import Cart
from tests.support.inventory import add, stock


@pytest.fixture
def cart_id():
    """A cart holding 2 of SKU "A" and 1 of "B" (5 of each stocked): its id."""
    stock("A", 5)
    stock("B", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    add(cart.id, "B", 1)
    return cart.id
