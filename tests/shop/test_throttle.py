"""Rate limits: sign-up, password reset, cart adds and checkout per address and per session
(django-ratelimit, core/throttle.py); log-ins per username, per address and per pair (django-axes,
core/loginlimits.py). Each answers the shop's 429 page with Retry-After and changes nothing."""

import time
import types

import django_ratelimit.core
import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from inventory.models import Inventory
from core.throttle import wording
from tests.support.shopper import SKU

PASSWORD = "a-long-Passphrase-7"


@pytest.fixture
def low_limits(settings):
    settings.SHOP_RATE_LIMITS = {"signup": "2/m", "password_reset": "2/m", "cart_add": "2/m", "checkout": "2/m"}


def signup(client, email):
    return client.post("/account/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})


def assert_throttled(answer):
    assert answer.status_code == 429
    assert 1 <= int(answer["Retry-After"]) <= 60
    page = answer.content.decode()
    assert "Too many attempts" in page and "Please wait" in page
    assert "Chinook Records" in page  # the shop's own layout (base.html)


def test_sign_up_is_limited_per_address(low_limits):
    assert signup(Client(), "a@example.com").status_code == 302
    assert signup(Client(), "b@example.com").status_code == 302
    answer = signup(Client(), "c@example.com")  # a new session, the same address
    assert_throttled(answer)
    assert not get_user_model().objects.filter(username="c@example.com").exists()
    # Another address is not affected.
    assert signup(Client(REMOTE_ADDR="192.0.2.9"), "d@example.com").status_code == 302


def test_password_reset_is_limited_and_sends_nothing_more(low_limits):
    get_user_model().objects.create_user("ada@example.com", "ada@example.com", PASSWORD)
    client = Client()
    for _ in range(2):
        assert client.post("/account/password/reset/", {"email": "ada@example.com"}).status_code == 302
    assert len(mail.outbox) == 2
    assert_throttled(client.post("/account/password/reset/", {"email": "ada@example.com"}))
    assert len(mail.outbox) == 2
    assert client.get("/account/password/reset/").status_code == 200  # GETs are not counted


def add_from(client, address):
    return client.post("/cart/add/", {"sku": SKU, "qty": 1}, REMOTE_ADDR=address)


def test_cart_adds_are_limited_per_session_across_addresses(low_limits, chinook):
    Inventory.objects.set_stock(SKU, 20)
    client = Client()
    assert add_from(client, "192.0.2.1").status_code == 302  # makes the session (not counted on it)
    for address in ("192.0.2.2", "192.0.2.3"):
        assert add_from(client, address).status_code == 302
    assert_throttled(add_from(client, "192.0.2.4"))
    assert Inventory.objects.get(pk=SKU).qty == 17


def test_checkout_attempts_are_limited(low_limits):
    client = Client()
    for _ in range(2):
        assert client.post("/checkout/", {}).status_code != 429
    assert_throttled(client.post("/checkout/", {}))


def test_the_limit_resets_after_its_window(low_limits, monkeypatch):
    for n in range(2):
        signup(Client(), f"{n}@example.com")
    assert signup(Client(), "late@example.com").status_code == 429
    later = time.time() + 61
    monkeypatch.setattr(django_ratelimit.core, "time", types.SimpleNamespace(time=lambda: later))
    assert signup(Client(), "late@example.com").status_code == 302


def test_wording_of_the_wait():
    assert [wording(s) for s in (1, 45, 60, 61, 150, 3600, 7200)] == [
        "1 second", "45 seconds", "1 minute", "61 seconds", "3 minutes", "1 hour", "2 hours"]


# --- log-ins (django-axes) --------------------------------------------------------

@pytest.fixture
def accounts(settings):
    settings.AXES_ENABLED = True  # off in shop/test_settings.py for the test client's login()
    settings.SHOP_LOGIN_FAILURE_LIMITS = {"username+ip_address": 3, "username": 5, "ip_address": 7}
    for name in ("ada", "bob", "cy"):
        get_user_model().objects.create_user(f"{name}@example.com", f"{name}@example.com", PASSWORD)


def login(client, email, password):
    return client.post("/account/login/", {"username": email, "password": password})


def test_one_username_from_many_addresses_is_locked(accounts):
    for n in range(5):  # under the pair's limit (3) from every address
        login(Client(REMOTE_ADDR=f"192.0.2.{n}"), "ada@example.com", "wrong")
    locked = login(Client(REMOTE_ADDR="192.0.2.99"), "ada@example.com", PASSWORD)
    assert locked.status_code == 429 and int(locked["Retry-After"]) == 3600
    assert "Too many failed log-ins" in locked.content.decode()
    assert login(Client(REMOTE_ADDR="192.0.2.99"), "bob@example.com", PASSWORD).status_code == 302


def test_one_address_spraying_usernames_is_locked(accounts):
    sprayer = "198.51.100.7"
    for n in range(7):
        login(Client(REMOTE_ADDR=sprayer), f"user{n}@example.com", "wrong")
    assert login(Client(REMOTE_ADDR=sprayer), "cy@example.com", PASSWORD).status_code == 429
    assert login(Client(REMOTE_ADDR="198.51.100.8"), "cy@example.com", PASSWORD).status_code == 302


def test_the_pair_keeps_its_own_lower_limit(accounts):
    for _ in range(3):
        login(Client(), "bob@example.com", "wrong")
    assert login(Client(), "bob@example.com", PASSWORD).status_code == 429
    assert login(Client(REMOTE_ADDR="192.0.2.50"), "bob@example.com", PASSWORD).status_code == 302


def test_a_success_elsewhere_does_not_lift_another_clients_lock_out(accounts):
    attacker = Client(REMOTE_ADDR="203.0.113.5")
    for _ in range(3):
        login(attacker, "ada@example.com", "wrong")
    assert login(Client(REMOTE_ADDR="192.0.2.60"), "ada@example.com", PASSWORD).status_code == 302
    assert login(attacker, "ada@example.com", PASSWORD).status_code == 429
