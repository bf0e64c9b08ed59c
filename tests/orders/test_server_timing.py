"""Server-Timing: a checkout tells how long it waited on Stripe, only when SHOP_SERVER_TIMING is on
(core/timing.py), so the soak benchmark can judge the shop on its own time."""

import re

import pytest

from core.timing import header_value, waiting_on
from inventory.models import Inventory

from tests.support.shopper import CARD, SKU, add


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)


def test_a_checkout_says_how_long_it_waited_on_stripe(client, shop, settings):
    settings.SHOP_SERVER_TIMING = True
    add(client)
    response = client.post("/checkout/", CARD)
    assert response.status_code == 302
    found = re.fullmatch(r"stripe;dur=(\d+\.\d)", response["Server-Timing"])
    assert found and float(found.group(1)) > 0


def test_no_header_by_default_nor_on_pages_that_waited_on_nothing(client, shop, settings):
    add(client)
    assert "Server-Timing" not in client.post("/checkout/", CARD)
    settings.SHOP_SERVER_TIMING = True
    assert "Server-Timing" not in client.get("/")


def test_waits_outside_a_request_are_not_kept():
    with waiting_on("stripe"):
        pass  # no error, nothing kept
    assert header_value({"stripe": 0.0417, "db": 0.002}) == "db;dur=2.0, stripe;dur=41.7"
