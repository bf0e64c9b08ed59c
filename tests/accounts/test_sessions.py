"""Server-side sessions that end (core/sessions.py).

Sessions used to be signed cookies: a cookie copied before sign-out still
opened /account/ after it, and a late answer of another tab could replace
the signed-in cookie with a guest one.
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from core.sessions import ENDED, SessionStore

from tests.support.shopper import add, session_cart

PASSWORD = "a-long-Passphrase-7"
COOKIE = settings.SESSION_COOKIE_NAME


@pytest.fixture
def ada():
    return get_user_model().objects.create_user("ada@example.com", "ada@example.com", PASSWORD)


def signed_in(email="ada@example.com"):
    client = Client()
    assert client.post("/account/login/", {"username": email, "password": PASSWORD}).status_code == 302
    return client


def copy_of(client):
    """Another client holding the same cookies (a copied cookie, or another tab)."""
    other = Client()
    other.cookies.load({name: morsel.value for name, morsel in client.cookies.items()})
    return other


def test_the_session_lives_in_the_database(ada):
    client = signed_in()
    key = client.cookies[COOKIE].value
    data = SessionStore(key).load()
    assert data["_auth_user_id"] == str(ada.pk)
    assert Session.objects.get(session_key=key).expire_date > timezone.now()


def test_a_cookie_copied_before_sign_out_opens_nothing_after_it(ada, settings):
    client = signed_in()
    thief = copy_of(client)
    assert thief.get("/account/").status_code == 200
    logout = client.post("/account/logout/")
    assert logout.cookies[COOKIE]["max-age"] == 0  # the browser drops its cookie
    answer = thief.get("/account/")
    assert answer.status_code == 302 and answer["Location"].startswith("/account/login/")
    # After the grace period the ended session is simply unknown: still nothing.
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert thief.get("/account/")["Location"].startswith("/account/login/")


def test_an_ended_session_keeps_no_data_and_answers_set_no_cookie(ada):
    client = signed_in()
    late_tab = copy_of(client)
    key = client.cookies[COOKIE].value
    client.post("/account/logout/")
    assert Session.objects.get(session_key=key).session_data == ENDED
    page = late_tab.get("/cart/")
    assert page.status_code == 200 and COOKIE not in page.cookies


def test_a_post_with_a_session_ended_in_another_tab_changes_nothing(chinook, ada):
    """The other tab signed in (the guest session's key ended) before this add was read."""
    from inventory.models import Cart, Inventory

    guest = Client()
    add(guest, qty=1)
    cart_id = session_cart(guest)
    other_tab = copy_of(guest)
    assert other_tab.post("/account/login/", {"username": "ada@example.com",
                                             "password": PASSWORD}).status_code == 302
    carts, held = Cart.objects.count(), Inventory.objects.reservations_of(cart_id)
    assert held == {"CHK-0001": 1} and session_cart(other_tab) == cart_id  # claimed by the account
    late = add(guest, qty=2)
    assert late.status_code == 409 and COOKIE not in late.cookies
    assert "nothing was changed" in late.content.decode()
    assert Cart.objects.count() == carts
    assert Inventory.objects.reservations_of(cart_id) == held
    assert other_tab.get("/account/").status_code == 200


def test_a_save_into_an_ended_session_is_refused(ada):
    client = signed_in()
    key = client.cookies[COOKIE].value
    store = SessionStore(key)
    store["cart_count"] = 3  # loaded while the session was live
    SessionStore(key).delete()  # another request signs out meanwhile
    from django.contrib.sessions.backends.base import UpdateError

    with pytest.raises(UpdateError):
        store.save()
    assert Session.objects.get(session_key=key).session_data == ENDED


def test_session_interrupted_gets_the_shops_page_not_a_500(ada, monkeypatch):
    """A request whose session ends while its view runs: Django's SessionInterrupted."""
    from inventory import views

    client = signed_in()
    key = client.cookies[COOKIE].value
    real = views.session_cart

    def sign_out_elsewhere(request):
        SessionStore(key).delete()
        request.session["touched"] = True
        return real(request)

    monkeypatch.setattr(views, "session_cart", sign_out_elsewhere)
    answer = client.get("/cart/")
    assert answer.status_code == 409 and COOKIE not in answer.cookies
    assert "You signed in or out in another tab" in answer.content.decode()


def test_clearsessions_deletes_expired_and_ended_sessions(ada, settings):
    settings.SESSION_ENDED_GRACE = 0
    live = signed_in()
    gone = signed_in()
    gone.post("/account/logout/")
    old = SessionStore()
    old["x"] = 1
    old.set_expiry(-10)
    old.save()
    assert Session.objects.count() == 3
    call_command("clearsessions")
    assert list(Session.objects.values_list("session_key", flat=True)) == [live.cookies[COOKIE].value]
    assert live.get("/account/").status_code == 200


def test_the_cookie_is_sent_for_a_new_key_only(chinook, ada):
    """An answer never sends back the key its request brought, so a late answer cannot put
    back a key that a sign-in in another tab ended (core.sessions.SessionMiddleware)."""
    client = Client()
    first = add(client, qty=1)
    key = first.cookies[COOKIE].value  # the session's first write: a new key, sent
    again = add(client, qty=1)
    assert again.status_code == 302 and COOKIE not in again.cookies
    assert SessionStore(key).load()["cart_count"] == 2  # saved all the same
    login = client.post("/account/login/", {"username": "ada@example.com", "password": PASSWORD})
    assert login.cookies[COOKIE].value not in ("", key)  # sign-in: a new key, sent
