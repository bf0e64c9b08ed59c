"""Nobody can choose the password of an account whose address they do not hold.

Before: an attacker signed up with the owner's address and their own password (the
account stayed inactive); the owner's later sign-up discarded the owner's password and
resent the first link, which activated the account with the attacker's password.
"""

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.core import mail
from django.test import Client

from accounts.models import PendingSignup

OWNER, ATTACKER = "owner-Passphrase-1", "attacker-Passphrase-2"
EMAIL = "ada@example.com"


def sign_up(password):
    Client().post("/account/signup/", {"email": EMAIL, "password1": password, "password2": password})
    body = [m.body for m in mail.outbox if m.to == [EMAIL] and "confirm" in m.subject][-1]
    return re.search(r"https?://[^/\s]+(/account/signup/confirm/\S+/)", body).group(1)


def logs_in(password):
    return Client().post("/account/login/", {"username": EMAIL, "password": password}).status_code == 302


def test_the_owners_sign_up_after_an_attackers_gets_the_owners_password():
    attackers_link = sign_up(ATTACKER)
    owners_link = sign_up(OWNER)
    assert owners_link != attackers_link
    assert not logs_in(ATTACKER) and not logs_in(OWNER)  # nothing active yet
    owner = Client()
    assert owner.post(owners_link, {"password": OWNER})["Location"] == "/account/"
    assert logs_in(OWNER) and not logs_in(ATTACKER)
    # The attacker's link is dead once the owner confirmed.
    assert Client().post(attackers_link, {"password": ATTACKER}).status_code == 400
    assert logs_in(OWNER) and not logs_in(ATTACKER)
    assert PendingSignup.objects.count() == 0


def test_the_owner_following_an_unasked_link_cannot_confirm_the_attackers_password():
    attackers_link = sign_up(ATTACKER)
    page = Client().post(attackers_link, {"password": OWNER})
    assert page.status_code == 200 and "not the password chosen" in page.content.decode()
    user = get_user_model().objects.get(username=EMAIL)
    assert not user.is_active and not user.has_usable_password()
    assert not logs_in(ATTACKER)


def test_an_unconfirmed_account_never_holds_a_sign_ups_password():
    sign_up(ATTACKER)
    user = get_user_model().objects.get(username=EMAIL)
    assert not user.has_usable_password() and not user.is_active
    kept = PendingSignup.objects.get().password
    assert ATTACKER not in kept and check_password(ATTACKER, kept)  # a hash, never the text


def test_a_forged_or_expired_link_is_refused(settings):
    link = sign_up(OWNER)
    assert Client().post(link[:-5] + "abcd/", {"password": OWNER}).status_code == 400
    settings.PASSWORD_RESET_TIMEOUT = -1
    assert Client().get(link).status_code == 400
    assert Client().post(link, {"password": OWNER}).status_code == 400
    assert not get_user_model().objects.get(username=EMAIL).is_active


def test_pending_sign_ups_are_deleted_once_their_links_are_long_dead(settings):
    from accounts.indexes import PENDING_SIGNUP_SECONDS
    from core.mongo import get_collection

    index = get_collection("pending_signups").index_information()["pending_signup_expiry"]
    assert index["key"] == [("created_at", 1)]
    assert index["expireAfterSeconds"] == PENDING_SIGNUP_SECONDS > settings.PASSWORD_RESET_TIMEOUT
