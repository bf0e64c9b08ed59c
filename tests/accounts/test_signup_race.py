"""Concurrent sign-ups with one e-mail: one account, the same answer for all.

Six simultaneous sign-ups used to give one account and five 500s: each
passed the existence check before any had written, and the unique
``auth_user`` username index refused the others' inserts (E11000). Now every
one is answered "check your e-mail" (sign-up tells no one whether an address
has an account); one account exists, inactive until confirmed.
"""

import threading

from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.forms import SignupForm

PASSWORD = "a-long-Passphrase-7"
DATA = {"email": "ada@example.com", "password1": PASSWORD, "password2": PASSWORD}


def test_an_account_made_between_the_check_and_the_write_is_answered_as_taken(monkeypatch):
    """The race made deterministic: another request creates the account just after this
    one's check; this one's insert meets the unique index."""
    real = SignupForm.save

    def another_request_wins(form, commit=True):
        get_user_model().objects.create_user(form.cleaned_data["email"], form.cleaned_data["email"], PASSWORD)
        return real(form, commit)

    monkeypatch.setattr(SignupForm, "save", another_request_wins)
    client = Client()
    response = client.post("/account/signup/", DATA)
    assert response.status_code == 302 and response["Location"] == "/account/signup/sent/"
    assert get_user_model().objects.filter(username="ada@example.com").count() == 1
    assert "_auth_user_id" not in client.session
    assert [m.subject for m in mail.outbox] == ["Chinook Records: you already have an account"]


def test_six_simultaneous_sign_ups_give_one_account_and_the_same_answer():
    clients = [Client() for _ in range(6)]
    barrier = threading.Barrier(len(clients))
    answers = [None] * len(clients)

    def sign_up(number):
        barrier.wait()
        answers[number] = clients[number].post("/account/signup/", DATA)

    threads = [threading.Thread(target=sign_up, args=(n,)) for n in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [(a.status_code, a["Location"]) for a in answers] == [(302, "/account/signup/sent/")] * 6
    assert get_user_model().objects.filter(username="ada@example.com").count() == 1
    assert sum("confirm your account" in m.subject for m in mail.outbox) >= 1
    assert len(mail.outbox) == 6
