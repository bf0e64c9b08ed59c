"""Account pages: sign-up and the account page; log-in, log-out and passwords are Django's views."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters

from orders.models import Order

from .forms import SignupForm


@sensitive_post_parameters("password1", "password2")
def signup(request):
    """``/account/signup/``: e-mail and password; a new account is signed in (the cart goes with it).

    An e-mail that has an account is a form error, also when a concurrent sign-up
    took it a moment before (the unique index decides; ``SignupForm.create_account``).
    """
    if request.user.is_authenticated:
        return redirect("accounts:account")
    form = SignupForm(request.POST or None)
    user = form.create_account() if request.method == "POST" and form.is_valid() else None
    if user is not None:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, "Welcome! Your account is ready.")
        return redirect("accounts:account")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def account(request):
    """``/account/``: the shopper's orders, newest first, each linking to its page (one read)."""
    return render(request, "accounts/account.html", {"orders": Order.objects.for_user(request.user.pk)})
