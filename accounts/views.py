"""Account pages: sign-up (``accounts.signup``) and the account page; log-in, log-out and
passwords are Django's views."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.debug import sensitive_post_parameters

from addresses.models import SavedAddress
from orders.models import Order

from . import signup as confirmation
from .forms import SignupConfirmForm, SignupForm


@sensitive_post_parameters("password1", "password2")
def signup(request):
    """``/account/signup/``: e-mail and password; every valid form is answered the same, a
    redirect to "check your e-mail", whether or not the address has an account (the e-mail
    says which, ``accounts.signup``). A new account is inactive until confirmed.
    """
    if request.user.is_authenticated:
        return redirect("accounts:account")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        confirmation.sign_up(form)
        return redirect("accounts:signup_sent")
    return render(request, "accounts/signup.html", {"form": form})


def signup_sent(request):
    """``/account/signup/sent/``: "check your e-mail"."""
    return render(request, "accounts/signup_sent.html")


@sensitive_post_parameters("password")
def signup_confirm(request, uidb64, token):
    """``/account/signup/confirm/<uidb64>/<token>/``: GET asks for the password chosen at
    sign-up (mail scanners that open links change nothing); its POST sets that password,
    activates the account and signs in (the cart goes with it). Another password is a form
    error and changes nothing; a used, expired or forged link is the shop's 400 page."""
    form = SignupConfirmForm(request.POST or None)
    try:
        if request.method == "POST" and form.is_valid():
            try:
                user = confirmation.confirm(uidb64, token, form.cleaned_data["password"])
            except confirmation.WrongPassword as error:
                form.add_error("password", str(error))
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, "Welcome! Your account is ready.")
                return redirect("accounts:account")
        else:
            confirmation.pending_signup(uidb64, token)
    except confirmation.ConfirmationRefused as error:
        return render(request, "400.html", {"reasons": [str(error)], "back_url": reverse("accounts:login"),
                                            "back_text": "Sign in"}, status=400)
    return render(request, "accounts/signup_confirm.html", {"form": form})


@login_required
def account(request):
    """``/account/``: the shopper's orders, newest first, each linking to its page (one read),
    and the address book (``addresses``, one read)."""
    return render(request, "accounts/account.html", {"orders": Order.objects.for_user(request.user.pk),
                                                     "addresses": SavedAddress.objects.for_user(request.user.pk)})
