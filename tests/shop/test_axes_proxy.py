"""django-axes behind the documented reverse proxy.

Every request reaches gunicorn from the proxy (REMOTE_ADDR 127.0.0.1); the
proxy appends the address it received the request from to
X-Forwarded-For. With ``SHOP_PROXY_COUNT`` (1 in production) django-axes
takes the client's address from that entry, so five wrong passwords lock
that client out, not every shopper and clerk behind the proxy.
"""

import os
import subprocess
import sys

import pytest
from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from tests.shop.test_serving import BASE_DIR, production_environ

PROXY = "127.0.0.1"


def from_proxy(client_address, sent_by_client=""):
    """A test client whose requests come through the proxy for ``client_address``;
    ``sent_by_client``: an X-Forwarded-For the client itself sent (the proxy appends)."""
    chain = f"{sent_by_client}, {client_address}" if sent_by_client else client_address
    return Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=chain)


def admin_login(client, password):
    return client.post("/admin/login/?next=/admin/", {"username": "clerk", "password": password})


@pytest.fixture
def clerk(settings):
    settings.AXES_ENABLED = True  # off in shop/test_settings.py for the test client's login()
    get_user_model().objects.create_user("clerk", password="clerk-password-1", is_staff=True)


def test_the_production_default_trusts_one_proxy(settings):
    assert settings.SHOP_PROXY_COUNT == 1
    assert settings.AXES_CLIENT_IP_CALLABLE == "core.clientip.client_ip"


def test_a_lock_out_behind_the_proxy_locks_one_client_not_everyone(clerk):
    attacker = from_proxy("198.51.100.66")
    for _ in range(4):
        assert admin_login(attacker, "wrong").status_code == 200
    assert admin_login(attacker, "wrong").status_code == 429  # the fifth failure locks
    assert admin_login(attacker, "clerk-password-1").status_code == 429
    # The clerk, behind the same proxy from another address, still signs in.
    assert admin_login(from_proxy("198.51.100.7"), "clerk-password-1").status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.66"}


def test_an_address_the_client_puts_in_x_forwarded_for_is_not_believed(clerk):
    """The client prepends addresses of its choice; the proxy's own entry (the last) counts."""
    for number in range(5):
        admin_login(from_proxy("198.51.100.66", sent_by_client=f"203.0.113.{number}"), "wrong")
    locked = from_proxy("198.51.100.66", sent_by_client="203.0.113.200")
    assert admin_login(locked, "clerk-password-1").status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.66"}
    # Another client whose own office proxy also sends X-Forwarded-For is not locked.
    other = from_proxy("198.51.100.7", sent_by_client="10.1.2.3")
    assert admin_login(other, "clerk-password-1").status_code == 302


def test_without_x_forwarded_for_the_peer_address_counts(settings):
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.9")
    assert get_client_ip_address(request) == "192.0.2.9"


@pytest.mark.parametrize("count, expected", [
    ("0", "127.0.0.1"),            # no proxy: X-Forwarded-For is ignored
    ("1", "198.51.100.3"),         # the documented set-up
    ("2", "198.51.100.2"),         # a CDN in front of the proxy: its entry is second from the right
])
def test_shop_proxy_count_comes_from_the_environment(count, expected):
    code = (
        "import django; django.setup(); from django.test import RequestFactory; "
        "from axes.helpers import get_client_ip_address as ip; "
        "print(ip(RequestFactory().get('/', REMOTE_ADDR='127.0.0.1', "
        "HTTP_X_FORWARDED_FOR='198.51.100.1, 198.51.100.2, 198.51.100.3')))"
    )
    environ = production_environ(SHOP_PROXY_COUNT=count, DJANGO_LOG_LEVEL="WARNING")
    result = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=environ,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
