"""Shopper account forms: sign-up by e-mail, log-in by e-mail (Django's auth forms underneath).

A shopper's username is their e-mail address in lower case, so Django's
``ModelBackend`` (and django-axes) work unchanged. Staff accounts are
separate: they sign in at the admin, and the shop's log-in refuses them.
Sign-up answers the same whether or not the address has an account; the
e-mail says which (``accounts.signup``).
"""

from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, BaseUserCreationForm, PasswordResetForm
from django.db import IntegrityError

from core.afterresponse import after_response


class SignupForm(BaseUserCreationForm):
    """E-mail and password twice (Django's password validators). Whether the address is new is
    not a form error (that would tell anyone which addresses have accounts): ``create_account``
    answers None for a taken one."""

    email = forms.EmailField(label="E-mail", max_length=150,
                             widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}))

    class Meta:
        model = get_user_model()
        fields = ("email",)

    def clean_email(self):
        return normalize_email(self.cleaned_data["email"])

    def save(self, commit=True):
        """The new user (saved when ``commit``), its username and e-mail the cleaned e-mail.

        The account is inactive until its owner follows the e-mailed link
        (``accounts.signup.confirm``), which sets the password. Raises ``IntegrityError`` when the username
        exists (the unique ``auth_user`` index refuses it).
        """
        user = super().save(commit=False)
        user.username = user.email = self.cleaned_data["email"]
        user.is_active = False
        # The password is the confirmed sign-up's, set by its confirmation (accounts.signup).
        user.set_unusable_password()
        if commit:
            user.save()
        return user

    def create_account(self):
        """Save the new, inactive account; returns the user, or None when the address has an
        account already, also when a concurrent sign-up with it won the unique index a moment
        before (six simultaneous sign-ups gave one account and five 500s). Call after
        ``is_valid()``.
        """
        if get_user_model()._default_manager.filter(username=self.cleaned_data["email"]).exists():
            return None
        try:
            return self.save()
        except IntegrityError:
            return None


class SignupConfirmForm(forms.Form):
    """The password chosen at sign-up, typed again to confirm it (``accounts.signup.confirm``)."""

    password = forms.CharField(label="The password you chose", strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password",
                                                                 "autofocus": True}))


class ShopperLoginForm(AuthenticationForm):
    """Django's log-in form with the e-mail as the username; staff are sent to the admin."""

    username = forms.EmailField(label="E-mail", max_length=150,
                                widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}))

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "The e-mail or the password is wrong.",
        "staff": "Staff accounts sign in at the admin.",
    }

    def clean_username(self):
        return self.cleaned_data["username"].strip().lower()

    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)
        if user.is_staff:
            raise forms.ValidationError(self.error_messages["staff"], code="staff")


def normalize_email(email):
    """The form in which the shop stores and looks up an e-mail address: stripped, lower case."""
    return (email or "").strip().lower()


class ShopPasswordResetForm(PasswordResetForm):
    """Django's password reset form, looking the address up exactly and linking to ``SHOP_SITE_URL``.

    Django's ``get_users`` uses ``email__iexact``, a regular expression on
    MongoDB; here the normalised address (addresses are stored lower case,
    ``accounts.signals.normalize_user_email``) is compared exactly, so no
    shopper's text is a pattern. The
    link's scheme and host come from the ``SHOP_SITE_URL`` setting, never from
    the request's ``Host`` header. The page answers the same whether or not
    the address has an account (Django's behaviour: only an account gets an e-mail).
    """

    def get_users(self, email):
        """Active users with a usable password whose e-mail is ``email`` (normalised), a generator."""
        users = get_user_model()._default_manager.filter(email=normalize_email(email), is_active=True)
        return (user for user in users if user.has_usable_password())

    def save(self, **options):
        """Django's ``save`` with ``domain_override`` and ``use_https`` from ``SHOP_SITE_URL``,
        run after the response (``core.afterresponse``): looking the address up, rendering and
        sending the e-mail would each make the answer slower only for an address with an
        account (a matched document alone costs the local server about 0.4 ms more)."""
        site = urlsplit(settings.SHOP_SITE_URL)
        options.update(domain_override=site.netloc, use_https=site.scheme == "https")
        after_response(super().save, **options)
