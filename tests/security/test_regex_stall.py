"""One request cannot stall the database: the address ``a`` + ``.*`` x 12 + ``!@x.co`` (hours
of backtracking for SecantusDB's ``re`` when sent as a pattern) posted to the password reset form,
typed in the admin's search boxes and put in its URL lookups, is answered within a generous bound
while another client's page answers too (core/mongo/base.py, accounts/forms.py, shop/admin_site.py)."""

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.security.conftest import REGEX

BOUND = 30.0  # seconds; with the pattern unescaped, 12 ".*" take hours


@pytest.fixture
def accounts():
    # Addresses a backtracking pattern chews on: long runs the ".*" can split every way.
    User = get_user_model()
    for n in range(20):
        User.objects.create_user(f"user{n}", email=f"{'a' * 40}{n}@x.co", password="pw")
    return User.objects.create_superuser("root", "root@example.com", "pw-Long-enough-1")


def both_answer(first, second):
    """Run ``first()`` in a thread and ``second()`` meanwhile; both must return within ``BOUND``.
    Returns their answers."""
    answers = {}
    thread = threading.Thread(target=lambda: answers.__setitem__("first", first()), daemon=True)
    started = time.monotonic()
    thread.start()
    answers["second"] = second()
    thread.join(BOUND)
    assert not thread.is_alive(), "the hostile request is still running"
    assert time.monotonic() - started < BOUND
    return answers["first"], answers["second"]


def other_shoppers_page():
    return Client().get("/c/rock/")


def test_password_reset_with_the_pattern_answers_and_so_does_another_page(chinook, accounts):
    reset, page = both_answer(lambda: Client().post("/account/password/reset/", {"email": REGEX}),
                              other_shoppers_page)
    assert reset.status_code == 302 and page.status_code == 200


def staff(accounts):
    client = Client()
    client.force_login(accounts)
    return client


@pytest.mark.parametrize("url, query, status", [
    ("/admin/auth/user/", {"q": REGEX}, 200),
    ("/admin/orders/order/", {"q": REGEX}, 200),
    ("/admin/orders/paymentattempt/", {"q": REGEX}, 200),
    ("/admin/inventory/cart/", {"q": REGEX}, 200),
    ("/admin/auth/user/", {"email__iexact": REGEX}, 200),
    ("/admin/auth/user/", {"email__icontains": REGEX}, 200),
    ("/admin/auth/user/", {"email__regex": REGEX}, 400),
    ("/admin/auth/user/", {"username__iregex": REGEX}, 400),
])
def test_admin_searches_and_lookups_answer_and_so_does_another_page(chinook, accounts, url, query, status):
    client = staff(accounts)
    listing, page = both_answer(lambda: client.get(url, query), other_shoppers_page)
    assert listing.status_code == status and page.status_code == 200
