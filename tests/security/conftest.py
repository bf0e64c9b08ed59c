"""Shared by the hostile-input suite: the values an attacker sends, and a snapshot of what a
request must not change."""

import pytest

from core.mongo import get_collection

REGEX = "a" + ".*" * 12 + "!@x.co"
HOSTILE_VALUES = [
    REGEX,
    r"^(a+)+$", "[", "(?i).*", "\\", "%", "_",
    "$where", '{"$gt": ""}', '{"$where": "sleep(1000)"}', "$ne",
    "9" * 40, "-1", "-99999999999999999999", "1e308", "NaN", "0x10", "3.5",
    "x" * 10_000, "\x00", "é" * 300, "<script>alert(1)</script>", "../../etc/passwd",
]
#: The collections a shopper's hostile request must leave as they were.
WATCHED = ("products", "categories", "inventory", "auth_user", "orders")


def snapshot():
    """``{collection: sorted documents}`` of ``WATCHED``."""
    return {name: sorted(map(repr, get_collection(name).find())) for name in WATCHED}


@pytest.fixture
def unchanged():
    """Asserts at the end of the test that ``WATCHED`` did not change."""
    before = snapshot()
    yield
    assert snapshot() == before
