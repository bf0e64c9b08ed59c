"""The address book on the account page (``/account/addresses/...``; the book itself is the
``addresses`` app): add, edit, delete, make default. Thin views over
``SavedAddress.objects``; each acts only on the signed-in shopper's own addresses (another
account's id, an unknown or a malformed one: the shop's 404 page)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from addresses.models import SavedAddress

from .address_forms import SavedAddressForm

KINDS = {"shipping": "default_shipping", "billing": "default_billing"}


def _mine(request, pk):
    try:
        return SavedAddress.objects.get_for_user(request.user.pk, pk)
    except SavedAddress.DoesNotExist:
        raise Http404("No such address.") from None


@login_required
def add(request):
    """``/account/addresses/add/``: a new address (the account's first becomes both defaults)."""
    form = SavedAddressForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        SavedAddress.objects.add(request.user.pk, form.address(), label=form.label_text())
        messages.success(request, "Address saved.")
        return redirect("accounts:account")
    return render(request, "addresses/form.html", {"form": form, "title": "Add an address"})


@login_required
def edit(request, pk):
    """``/account/addresses/<pk>/``: change an address of the shopper's (404 for another's)."""
    saved = _mine(request, pk)
    form = SavedAddressForm(request.POST or None, initial={**saved.as_address(), "label": saved.label})
    if request.method == "POST" and form.is_valid():
        try:
            SavedAddress.objects.change(request.user.pk, saved.pk, form.address(), label=form.label_text())
        except SavedAddress.DoesNotExist:
            raise Http404("No such address.") from None
        messages.success(request, "Address saved.")
        return redirect("accounts:account")
    return render(request, "addresses/form.html", {"form": form, "title": "Edit an address", "saved": saved})


@require_POST
@login_required
def delete(request, pk):
    """``/account/addresses/<pk>/delete/`` (POST): remove it; a default passes to the oldest left."""
    try:
        SavedAddress.objects.remove(request.user.pk, pk)
    except SavedAddress.DoesNotExist:
        raise Http404("No such address.") from None
    messages.success(request, "Address deleted.")
    return redirect("accounts:account")


@require_POST
@login_required
def make_default(request, pk, kind):
    """``/account/addresses/<pk>/default/<shipping|billing>/`` (POST): the default of that kind."""
    if kind not in KINDS:
        raise Http404("No such kind of default.")
    try:
        SavedAddress.objects.make_default(request.user.pk, pk, KINDS[kind])
    except SavedAddress.DoesNotExist:
        raise Http404("No such address.") from None
    messages.success(request, f"Default {kind} address changed.")
    return redirect("accounts:account")
