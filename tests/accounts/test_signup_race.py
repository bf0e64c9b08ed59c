"""Concurrent sign-ups with one e-mail: one account, a form error for the others.

Six simultaneous sign-ups used to give one account and five 500s: each
passed ``clean_email``'s check before any had written, and the unique
``auth_user`` username index refused the others' inserts (E11000).
"""

import threading

from django.contrib.auth import get_user_model
from django.test import Client

from accounts.forms import SignupForm

PASSWORD = "a-long-Passphrase-7"
DATA = {"email": "ada@example.com", "password1": PASSWORD, "password2": PASSWORD}


def test_an_account_made_between_the_check_and_the_write_is_a_form_error(monkeypatch):
    """The race made deterministic: another request creates the account just after this
    one's check; this one's insert meets the unique index."""
    real = SignupForm.clean_email

    def another_request_wins(form):
        email = real(form)
        get_user_model().objects.create_user(email, email, PASSWORD)
        return email

    monkeypatch.setattr(SignupForm, "clean_email", another_request_wins)
    client = Client()
    response = client.post("/account/signup/", DATA)
    assert response.status_code == 200
    assert "An account with this e-mail already exists" in response.content.decode()
    assert get_user_model().objects.filter(username="ada@example.com").count() == 1
    assert "_auth_user_id" not in client.session


def test_six_simultaneous_sign_ups_give_one_account_and_five_form_errors():
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
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] * 5 + [302], statuses
    for answer in answers:
        if answer.status_code == 200:
            assert "An account with this e-mail already exists" in answer.content.decode()
    assert get_user_model().objects.filter(username="ada@example.com").count() == 1
    signed_in = [c for c in clients if c.get("/account/").status_code == 200]
    assert len(signed_in) == 1
