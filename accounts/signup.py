"""Sign-up that tells no one which addresses have accounts, and that nobody can pre-empt.

``/account/signup/`` answers every valid form the same way: a redirect to
"check your e-mail" (``signup_sent``). The e-mail says which case it was:

* an address without a confirmed account: the sign-up is kept as a
  ``PendingSignup`` with the password it chose (hashed), and the e-mail holds a
  one-time link to *that* sign-up. Following it and typing the same password
  again sets that password on the account, activates it and signs in. The
  account itself (made inactive, with no usable password, at the first
  sign-up) never takes a password from a sign-up that was not confirmed.
* an address with a confirmed account: the e-mail says so, with links to sign
  in and to reset the password; nothing changes.

Why the password is asked again: someone who signs up with another person's
address cannot follow the link (it goes to that address), and the address's
owner who follows a link they did not ask for cannot confirm it (they do not
know the password it chose). Before, a second sign-up resent the first link,
which activated the account with the first (an attacker's) password.

The link names the pending sign-up and carries an HMAC of its id, address,
password hash and time (``salted_hmac`` with the secret key); it expires
after ``PASSWORD_RESET_TIMEOUT`` seconds and works once: the activation is one
conditional write (``is_active: False`` -> True with the password), and the
address's pending sign-ups are then deleted. Links are built from
``SHOP_SITE_URL``.
"""

from datetime import timedelta

from bson import ObjectId
from bson.errors import InvalidId
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password, make_password
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from core import clock
from core.afterresponse import after_response

from .models import PendingSignup

KEY_SALT = "accounts.signup.PendingSignup"


class ConfirmationRefused(Exception):
    """The link is used, expired or forged (``str()`` says so for the page)."""


class WrongPassword(Exception):
    """The password typed is not the one this sign-up chose: nothing changed."""


def _send(name, to, context):
    after_response(_send_now, name, to, context)


def _send_now(name, to, context):
    context = {**context, "site": settings.SHOP_SITE_URL.rstrip("/"), "shop_name": settings.SHOP_NAME}
    subject = " ".join(render_to_string(f"emails/{name}_subject.txt", context).split())
    message = EmailMultiAlternatives(subject, render_to_string(f"emails/{name}.txt", context),
                                     settings.DEFAULT_FROM_EMAIL, [to])
    message.attach_alternative(render_to_string(f"emails/{name}.html", context), "text/html")
    message.send()


def _token(pending):
    value = f"{pending.pk}|{pending.email}|{pending.password}|{pending.created_at.timestamp():.0f}"
    return salted_hmac(KEY_SALT, value, algorithm="sha256").hexdigest()[:40]


def confirmation_path(pending):
    """The path (str) of the one-time link of ``pending`` (a ``PendingSignup``)."""
    return reverse("accounts:signup_confirm", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(str(pending.pk))), "token": _token(pending)})


def _confirmed_account_exists(email):
    user = get_user_model()._default_manager.filter(username=email).first()
    return user is not None and (user.is_active or user.last_login is not None)


def sign_up(form):
    """Answer a valid ``SignupForm``: e-mail its address either a confirmation link for this
    sign-up (a new ``PendingSignup`` with its password hashed; the inactive account made on
    the address's first sign-up, with no usable password) or "you already have an account".
    Both do the same password hashing, so the time taken tells nothing. Returns None."""
    email, password = form.cleaned_data["email"], form.cleaned_data["password1"]
    hashed = make_password(password)
    # An account made by a concurrent request between the check and the insert is
    # looked at again: create_account answers None then.
    if _confirmed_account_exists(email) or (form.create_account() is None and _confirmed_account_exists(email)):
        _send("signup_exists", email, {"email": email, "login_path": reverse("accounts:login"),
                                       "reset_path": reverse("accounts:password_reset")})
        return
    pending = PendingSignup.objects.create(email=email, password=hashed, created_at=clock.now())
    _send("signup_confirm", email, {"email": email, "path": confirmation_path(pending)})


def pending_signup(uidb64, token):
    """The ``PendingSignup`` a link names when its token is right and it has not expired.

    Raises ``ConfirmationRefused`` otherwise (also when its account was confirmed meanwhile)."""
    refused = ConfirmationRefused("This confirmation link was used already, has expired or is not complete.")
    try:
        pending = PendingSignup.objects.get(pk=ObjectId(force_str(urlsafe_base64_decode(uidb64))))
    except (TypeError, ValueError, OverflowError, InvalidId, PendingSignup.DoesNotExist):
        raise refused from None
    if not constant_time_compare(_token(pending), token):
        raise refused
    if pending.created_at < clock.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT):
        raise refused
    return pending


def confirm(uidb64, token, password):
    """Confirm the sign-up a link names with the ``password`` typed: the account takes that
    sign-up's password and becomes active, in one conditional write (only while inactive),
    and the address's pending sign-ups are deleted. Returns the user.

    Raises ``ConfirmationRefused`` (used, expired, forged, or the account confirmed by another
    link meanwhile) or ``WrongPassword`` (nothing changes)."""
    pending = pending_signup(uidb64, token)
    if not check_password(password, pending.password):
        raise WrongPassword("This is not the password chosen when this link was asked for.")
    users = get_user_model()._default_manager
    if not users.filter(username=pending.email, is_active=False, last_login__isnull=True).update(
            password=pending.password, is_active=True):
        raise ConfirmationRefused("This confirmation link was used already, has expired or is not complete.")
    PendingSignup.objects.filter(email=pending.email).delete()
    return users.get(username=pending.email)
