"""Sign-up that tells no one which addresses have accounts.

``/account/signup/`` answers every valid form the same way: a redirect to
"check your e-mail" (``signup_sent``). The e-mail says which case it was:

* a new address: the account is made inactive and the e-mail holds a
  one-time link (``confirm``) that activates it and signs the shopper in;
* an address with an account: the e-mail says so, with links to sign in and
  to reset the password; nothing changes. An account never confirmed gets its
  link again.

The link's token is Django's password-reset token machinery with the
account's ``is_active`` in its hash, so it stops working once used; it
expires after ``PASSWORD_RESET_TIMEOUT``. Links are built from ``SHOP_SITE_URL``.
"""

from bson.errors import InvalidId
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode


class ConfirmationTokens(PasswordResetTokenGenerator):
    """Django's reset tokens, also invalidated by the account becoming active (one use)."""

    key_salt = "accounts.signup.ConfirmationTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"


tokens = ConfirmationTokens()


def _send(name, to, context):
    context = {**context, "site": settings.SHOP_SITE_URL.rstrip("/"), "shop_name": settings.SHOP_NAME}
    subject = " ".join(render_to_string(f"emails/{name}_subject.txt", context).split())
    message = EmailMultiAlternatives(subject, render_to_string(f"emails/{name}.txt", context),
                                     settings.DEFAULT_FROM_EMAIL, [to])
    message.attach_alternative(render_to_string(f"emails/{name}.html", context), "text/html")
    message.send()


def confirmation_path(user):
    """The path (str) of ``user``'s one-time confirmation link."""
    return reverse("accounts:signup_confirm", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": tokens.make_token(user)})


def send_confirmation(user):
    """E-mail ``user`` (inactive) the link that activates the account and signs in."""
    _send("signup_confirm", user.email, {"email": user.email, "path": confirmation_path(user)})


def send_already_registered(email):
    """E-mail ``email`` that it has an account: sign in, or reset the password. Resends the
    confirmation instead to an account never confirmed."""
    user = get_user_model()._default_manager.filter(username=email).first()
    if user is not None and not user.is_active and user.last_login is None:
        send_confirmation(user)
        return
    _send("signup_exists", email, {"email": email, "login_path": reverse("accounts:login"),
                                   "reset_path": reverse("accounts:password_reset")})


def confirmed_user(uidb64, token):
    """The user a confirmation link names when its token is valid (then made active), else None."""
    try:
        pk = force_str(urlsafe_base64_decode(uidb64))
        user = get_user_model()._default_manager.get(pk=pk)
    except (TypeError, ValueError, OverflowError, ValidationError, InvalidId, get_user_model().DoesNotExist):
        return None
    if user.is_active or not tokens.check_token(user, token):
        return None
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user
