"""Sign-up and password reset e-mail after the response is sent (``core.afterresponse``), so the
answer takes as long for an address with an account as for one without: the page a shopper
gets is produced before any e-mail is rendered or sent."""

import logging
import threading

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.signals import request_finished, request_started
from django.http.response import HttpResponseBase
from django.test import Client

from core.afterresponse import after_response


@pytest.fixture
def outbox_at_close(monkeypatch):
    """The number of e-mails sent when each response of this test's thread was closed (the
    server has written it). Other threads' responses are left out: the session's live server
    may be answering the local Stripe's webhooks of earlier tests meanwhile."""
    seen = []
    close = HttpResponseBase.close
    this_thread = threading.get_ident()

    def recording_close(response):
        if threading.get_ident() == this_thread:
            seen.append(len(mail.outbox))
        close(response)

    monkeypatch.setattr(HttpResponseBase, "close", recording_close)
    return seen


def test_a_password_reset_is_answered_before_its_e_mail_is_sent(outbox_at_close):
    get_user_model().objects.create_user("ada@example.com", "ada@example.com", "Ada-Passphrase-1")
    response = Client().post("/account/password/reset/", {"email": "ada@example.com"})
    assert response.status_code == 302
    assert outbox_at_close == [0]
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]


def test_a_sign_up_is_answered_before_its_e_mail_is_sent(outbox_at_close):
    Client().post("/account/signup/", {"email": "bo@example.com", "password1": "Bo-Passphrase-12",
                                      "password2": "Bo-Passphrase-12"})
    assert outbox_at_close == [0]
    assert [m.to for m in mail.outbox] == [["bo@example.com"]]


def test_outside_a_request_the_work_runs_at_once():
    done = []
    after_response(done.append, 1)
    assert done == [1]


def test_a_failing_task_is_logged_and_the_others_still_run(caplog):
    done = []

    def broken():
        raise OSError("mail server down")

    request_started.send(sender=None)
    after_response(broken)
    after_response(done.append, 2)
    assert done == []
    with caplog.at_level(logging.ERROR, logger="core.afterresponse"):
        request_finished.send(sender=None)
    assert done == [2]
    assert "mail server down" in caplog.text
