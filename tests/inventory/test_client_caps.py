"""Per-client caps of reservations (inventory/limits.py, inventory/managers/holds.py): units of one
SKU across all the carts of one client address, and carts one address opens. A script without
cookies (a new session and cart on every request) can no longer hold every unit of the shop."""

import threading

import pytest
from django.test import Client

from inventory.managers.holds import ClientHolds, units_key
from inventory.models import Cart, Inventory
from tests.support.inventory import assert_invariant
from tests.support.shopper import OTHER, SKU

HOARDER = "203.0.113.50"


@pytest.fixture
def caps(settings, chinook):
    settings.CART_MAX_SKU_UNITS_PER_CLIENT = 12
    settings.CART_MAX_SKU_SHARE_PER_CLIENT = 25
    settings.CART_MAX_OPEN_CARTS_PER_CLIENT = 5
    Inventory.objects.set_stock(SKU, 100)
    Inventory.objects.set_stock(OTHER, 100)


def add(client, sku=SKU, qty=1):
    return client.post("/cart/add/", {"sku": sku, "qty": qty}, follow=True)


def held(sku=SKU):
    return 100 - Inventory.objects.available(sku)


def test_cookieless_adds_stop_at_the_units_cap(caps):
    for _ in range(4):
        add(Client(REMOTE_ADDR=HOARDER), qty=3)  # 12 units in 4 carts
    answer = add(Client(REMOTE_ADDR=HOARDER), qty=1)
    assert "You already hold the most units" in answer.content.decode()
    assert held() == 12
    # Another SKU, and another client, are not affected.
    assert "Added" in add(Client(REMOTE_ADDR=HOARDER), OTHER, 2).content.decode()
    assert "Added" in add(Client(REMOTE_ADDR="192.0.2.1"), qty=5).content.decode()
    assert held() == 17
    assert_invariant()


def test_one_cart_cannot_pass_the_cap_by_raising_a_line(caps):
    shopper = Client(REMOTE_ADDR=HOARDER)
    add(shopper, qty=10)
    add(Client(REMOTE_ADDR=HOARDER), qty=2)
    answer = shopper.post("/cart/update/", {"sku": SKU, "qty": 3}, follow=True)  # 10 -> 3: gives 7 back
    assert "now holds 3" in answer.content.decode()
    answer = shopper.post("/cart/update/", {"sku": SKU, "qty": 10}, follow=True)  # +7: 5 + 7 = 12
    assert "now holds 10" in answer.content.decode()
    answer = add(Client(REMOTE_ADDR=HOARDER), qty=1)
    assert "You already hold the most units" in answer.content.decode()
    shopper.post("/cart/remove/", {"sku": SKU})
    assert ClientHolds().count(units_key(HOARDER, SKU)) == 2
    assert "Added" in add(Client(REMOTE_ADDR=HOARDER), qty=10).content.decode()
    assert held() == 12


def test_open_carts_per_address_are_capped(caps):
    for _ in range(5):
        add(Client(REMOTE_ADDR=HOARDER), OTHER, 1)
    answer = add(Client(REMOTE_ADDR=HOARDER), OTHER, 1)
    assert "Too many carts were opened from your address" in answer.content.decode()
    assert Cart.objects.count() == 5 and held(OTHER) == 5
    # Nothing of the refused add stays counted: the units of SKU are all still allowed.
    assert ClientHolds().count(units_key(HOARDER, OTHER)) == 5


def test_the_counts_end_with_the_cart_timeout(caps, settings, monkeypatch):
    import datetime

    from core import clock

    for _ in range(4):
        add(Client(REMOTE_ADDR=HOARDER), qty=3)
    later = clock.now() + datetime.timedelta(seconds=settings.CART_TIMEOUT + 1)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert ClientHolds().count(units_key(HOARDER, SKU)) == 0


def test_the_units_cap_holds_under_threads(caps, settings):
    """16 cookieless clients from one address add 2 units each at once: exactly 12 units held."""
    settings.CART_MAX_OPEN_CARTS_PER_CLIENT = 100
    clients = [Client(REMOTE_ADDR=HOARDER) for _ in range(16)]
    barrier = threading.Barrier(len(clients))
    answers = [None] * len(clients)

    def run(number):
        barrier.wait()
        answers[number] = clients[number].post("/cart/add/", {"sku": SKU, "qty": 2})

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(answer.status_code == 302 for answer in answers)
    assert held() == 12
    assert ClientHolds().count(units_key(HOARDER, SKU)) == 12
    assert_invariant()


def test_take_is_atomic_under_threads():
    """The counting alone, 20 threads taking 1 of a cap of 7 on a new document: 7 succeed."""
    holds = ClientHolds()
    barrier = threading.Barrier(20)
    results = []

    def run():
        barrier.wait()
        results.append(holds.take("units|198.51.100.1|X", 1, 7, 60))

    threads = [threading.Thread(target=run) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 7
    assert holds.count("units|198.51.100.1|X") == 7


def test_thirty_cookieless_sessions_from_one_address_cannot_empty_a_product(chinook, settings):
    """The attack as found: 30 sessions from one address adding 10 units each left the SKU
    (20 in stock) sold out to everyone. The cap is now a share of the stock (25 %: 5 units)."""
    settings.CART_MAX_SKU_UNITS_PER_CLIENT, settings.CART_MAX_SKU_SHARE_PER_CLIENT = 10, 25  # the defaults
    settings.CART_MAX_OPEN_CARTS_PER_CLIENT = 100
    Inventory.objects.set_stock(SKU, 20)
    for _ in range(30):
        add(Client(REMOTE_ADDR=HOARDER), qty=10)
        add(Client(REMOTE_ADDR=HOARDER), qty=1)
    assert 20 - Inventory.objects.available(SKU) == 5
    assert "Added" in add(Client(REMOTE_ADDR="192.0.2.1"), qty=5).content.decode()
    assert_invariant()


def test_one_ipv6_network_is_one_client(caps):
    for host in range(1, 5):
        add(Client(REMOTE_ADDR=f"2001:db8:1:2::{host:x}"), qty=3)  # 12 units from one /64
    answer = add(Client(REMOTE_ADDR="2001:db8:1:2:ffff:ffff:ffff:ffff"), qty=1)
    assert "You already hold the most units" in answer.content.decode()
    assert "Added" in add(Client(REMOTE_ADDR="2001:db8:1:3::1"), qty=1).content.decode()  # another /64
    assert held() == 13


def test_client_key_stands_an_ipv6_address_for_its_network(rf, settings):
    from core.clientip import client_key

    settings.SHOP_PROXY_COUNT = 0
    key = lambda address: client_key(rf.get("/", REMOTE_ADDR=address))  # noqa: E731
    assert key("2001:db8:1:2:3:4:5:6") == key("2001:db8:1:2::9") == "2001:db8:1:2::"
    assert key("203.0.113.9") == "203.0.113.9" and key("::ffff:203.0.113.9") == "203.0.113.9"
    settings.SHOP_IPV6_PREFIX = 48
    assert key("2001:db8:1:2::1") == key("2001:db8:1:ffff::1") == "2001:db8:1::"


def test_a_cap_that_lets_one_client_hold_the_default_stock_is_warned_of(settings):
    from django.core import checks

    from inventory.checks import check_client_cap

    assert check_client_cap in checks.registry.registry.get_checks()
    settings.INVENTORY_DEFAULT_STOCK = 20
    settings.CART_MAX_SKU_SHARE_PER_CLIENT, settings.CART_MAX_SKU_UNITS_PER_CLIENT = 25, 10
    assert check_client_cap() == []  # 5 of 20
    settings.CART_MAX_SKU_SHARE_PER_CLIENT = 100  # the share limits nothing: 10 of 20 still
    assert check_client_cap() == []
    settings.CART_MAX_SKU_UNITS_PER_CLIENT = 20  # the finding: a cap equal to the stock
    assert [warning.id for warning in check_client_cap()] == ["inventory.W001"]
