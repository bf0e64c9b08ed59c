"""Shopper accounts: sign-up, log-in with the cart merge, log-out, passwords, the account page."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from inventory.models import Cart, Inventory
from orders.models import Order

from tests.support.inventory import assert_invariant, cart_doc
from tests.support.shopper import CARD, OTHER, SKU, add, session_cart

PASSWORD = "a-long-Passphrase-7"


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 20)
    Inventory.objects.set_stock(OTHER, 20)


def post_signup(client, email="ada@example.com", password=PASSWORD):
    return client.post("/account/signup/", {"email": email, "password1": password, "password2": password})


def confirmation_link(email="ada@example.com"):
    """The path of the last confirmation link e-mailed to ``email``."""
    bodies = [m.body for m in mail.outbox if m.to == [email] and "confirm" in m.subject]
    return re.search(r"https?://[^/\s]+(/account/signup/confirm/\S+/)", bodies[-1]).group(1)


def signup(client, email="ada@example.com", password=PASSWORD):
    """Sign up and follow the e-mailed link with ``client``: signed in. Returns the confirmation's answer."""
    post_signup(client, email, password)
    return client.post(confirmation_link(email.lower()), {"password": password})


def login(client, email="ada@example.com", password=PASSWORD, follow=False):
    return client.post("/account/login/", {"username": email, "password": password}, follow=follow)


def test_sign_up_confirmed_by_its_link_signs_in_and_shows_the_account_page(client, shop):
    answer = post_signup(client, email="Ada@Example.com")
    assert answer.status_code == 302 and answer["Location"] == "/account/signup/sent/"
    user = get_user_model().objects.get(username="ada@example.com")
    assert user.email == "ada@example.com" and not user.is_staff and not user.is_active
    assert "_auth_user_id" not in client.session
    link = confirmation_link()
    assert client.get(link).status_code == 200 and get_user_model().objects.get().is_active is False
    response = client.post(link, {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/account/"
    assert client.post(link, {"password": PASSWORD}).status_code == 400  # one use
    page = client.get("/account/").content.decode()
    assert "Signed in as ada@example.com" in page and "No orders yet" in page


def test_sign_up_answers_the_same_for_an_address_with_an_account(shop):
    signup(Client())
    mail.outbox.clear()
    new, taken = post_signup(Client(), email="bob@example.com"), post_signup(Client(), email="ADA@example.com")
    assert (new.status_code, new["Location"]) == (taken.status_code, taken["Location"])
    assert get_user_model().objects.count() == 2
    (to_bob,) = [m for m in mail.outbox if m.to == ["bob@example.com"]]
    (to_ada,) = [m for m in mail.outbox if m.to == ["ada@example.com"]]
    assert "confirm your account" in to_bob.subject
    assert "already have an account" in to_ada.subject and "/account/password/reset/" in to_ada.body
    assert login(Client(), password=PASSWORD).status_code == 302  # Ada's password unchanged


@pytest.mark.parametrize("data, error", [
    ({"email": "bob@example.com", "password1": "short", "password2": "short"}, "too short"),
    ({"email": "bob@example.com", "password1": PASSWORD, "password2": PASSWORD + "x"}, "didn"),
    ({"email": "not-an-email", "password1": PASSWORD, "password2": PASSWORD}, "valid email"),
])
def test_bad_sign_ups_are_form_errors(shop, data, error):
    signup(Client())
    response = Client().post("/account/signup/", data)
    assert response.status_code == 200 and error in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_log_in_log_out_and_a_wrong_password(shop):
    signup(Client())
    client = Client()
    assert "wrong" in login(client, password="nope").content.decode()
    assert login(client, email="ADA@example.com")["Location"] == "/account/"
    assert client.get("/account/").status_code == 200
    client.post("/account/logout/")
    assert client.get("/account/")["Location"].startswith("/account/login/")


def test_staff_sign_in_at_the_admin_not_the_shop(shop):
    get_user_model().objects.create_user("boss@example.com", "boss@example.com", PASSWORD, is_staff=True)
    response = login(Client(), email="boss@example.com")
    assert response.status_code == 200 and "Staff accounts sign in at the admin" in response.content.decode()


def test_login_csrf_is_refused(shop):
    signup(Client())
    strict = Client(enforce_csrf_checks=True)
    response = login(strict)
    assert response.status_code == 403
    assert "_auth_user_id" not in strict.session


def test_log_in_combines_the_guest_cart_and_says_so(shop):
    client = Client()
    signup(client)
    add(client, SKU, 2)
    account_cart = session_cart(client)
    client.post("/account/logout/")
    assert cart_doc(account_cart)["status"] == "active"  # log-out leaves the cart with the account
    assert client.session.get("cart_id") is None
    add(client, SKU, 3)
    add(client, OTHER, 1)
    guest = session_cart(client)
    response = login(client, follow=True)
    page = response.content.decode()
    assert "We combined your cart" in page and "3 added to the 2 already there" in page
    assert session_cart(client) == account_cart and client.session["cart_count"] == 6
    assert {line["sku"]: line["qty"] for line in cart_doc(account_cart)["items"]} == {SKU: 5, OTHER: 1}
    assert cart_doc(guest)["status"] == "merged"
    assert "Cart (6)" in client.get("/cart/").content.decode()
    assert_invariant()


def test_log_in_without_an_account_cart_keeps_the_guest_cart(shop):
    signup(Client())
    client = Client()
    add(client, SKU, 2)
    guest = session_cart(client)
    response = login(client, follow=True)
    assert "We combined" not in response.content.decode()
    assert session_cart(client) == guest and cart_doc(guest)["user_id"]


def test_adds_while_signed_in_go_to_an_account_cart(shop):
    client = Client()
    signup(client)
    add(client, SKU, 1)
    user = get_user_model().objects.get(username="ada@example.com")
    assert cart_doc(session_cart(client))["user_id"] == str(user.pk)
    # On another device, the cart is found at log-in.
    other = Client()
    login(other)
    assert session_cart(other) == session_cart(client) and other.session["cart_count"] == 1


def test_the_account_page_lists_the_orders_newest_first(shop):
    client = Client()
    signup(client)
    add(client, SKU, 1)
    first = client.post("/checkout/", CARD)["Location"].split("/")[-2]
    add(client, OTHER, 2)
    second = client.post("/checkout/", CARD)["Location"].split("/")[-2]
    page = client.get("/account/").content.decode()
    assert page.index(second) < page.index(first)
    assert f'href="/order/{first}/"' in page
    # The account sees its orders from another session; a guest order of someone else stays hidden.
    other = Client()
    login(other)
    assert other.get(f"/order/{first}/").status_code == 200
    guest = Client()
    add(guest, SKU, 1)
    foreign = guest.post("/checkout/", CARD)["Location"].split("/")[-2]
    assert other.get(f"/order/{foreign}/").status_code == 404
    assert Order.objects.count() == 3


def test_password_change(shop):
    client = Client()
    signup(client)
    new = "another-Passphrase-9"
    response = client.post("/account/password/", {
        "old_password": PASSWORD, "new_password1": new, "new_password2": new})
    assert response["Location"] == "/account/password/done/"
    assert login(Client(), password=new).status_code == 302
    assert login(Client(), password=PASSWORD).status_code == 200


def test_password_reset_by_email(shop, settings):
    settings.SHOP_SITE_URL = "https://shop.example"
    signup(Client())
    mail.outbox.clear()
    client = Client()
    response = client.post("/account/password/reset/", {"email": "ADA@example.com"})
    assert response["Location"] == "/account/password/reset/sent/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.com"] and "new password" in message.subject
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html" and "Choose a new password" in html
    # The link's host is SHOP_SITE_URL's, whatever Host the request named.
    link = re.search(r"https://shop\.example(/account/password/reset/\S+/)", message.body).group(1)
    form = client.get(link, follow=True)
    new = "reset-Passphrase-11"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done["Location"] == "/account/password/reset/done/"
    assert login(Client(), password=new).status_code == 302
    # An unknown address sends nothing and says the same.
    mail.outbox.clear()
    response = Client().post("/account/password/reset/", {"email": "nobody@example.com"})
    assert response["Location"] == "/account/password/reset/sent/" and mail.outbox == []


def test_account_pages_need_a_login(shop):
    assert Client().get("/account/")["Location"] == "/account/login/?next=/account/"
    assert Client().get("/account/password/")["Location"].startswith("/account/login/")


def test_guest_checkout_still_works(shop):
    client = Client()
    add(client, SKU, 1)
    response = client.post("/checkout/", CARD)
    assert response.status_code == 302
    assert Order.objects.get().user_id == ""
    assert Cart.objects.count() == 1
