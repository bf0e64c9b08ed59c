"""The test provider's charges, as a provider's dashboard shows them (``TestProvider.charges``)."""

from orders.payments import TestProvider


def charges():
    """``{charge id: (amount cents, cart id)}`` of every charge the test provider took."""
    return {charge["id"]: (charge["amount"], charge["reference"]) for charge in TestProvider().charges()}


def refunded():
    """The set of charge ids the test provider refunded."""
    return {charge["id"] for charge in TestProvider().charges() if charge["refunded"]}


def forget_charges():
    """Empty the test provider's ledger file (each test starts with no charge)."""
    connection = TestProvider()._connect()
    try:
        connection.execute("DELETE FROM charges")
    finally:
        connection.close()
