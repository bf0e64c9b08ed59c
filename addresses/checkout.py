"""The address book at checkout: the signed-in shopper's saved addresses, and the address
forms filled from them: the shipping address (the default for shipping, or the one clicked:
``?address=<id>``) and the billing address (``?billing=<id>``, else the default for billing
when it is another address than the one shipped to, else "same as shipping").

One read (``SavedAddress.objects.for_user``) and only when the page is drawn, never for a
guest, and never on a POST that places the order: the posted address is the order's
snapshot, whatever the book holds later.
"""

from django.http import Http404
from django.utils.functional import cached_property

from .models import ADDRESS_FIELDS, SavedAddress


class AddressBook:
    """The saved addresses of ``request``'s user, read on first use (``addresses``: a list,
    empty for a guest). ``chosen(pk)``: the address ``pk`` of this user (Http404 for
    another's or an unknown id); ``default()``: the shipping default or None."""

    def __init__(self, request):
        self.user_id = str(request.user.pk) if request.user.is_authenticated else ""

    @cached_property
    def addresses(self):
        return SavedAddress.objects.for_user(self.user_id) if self.user_id else []

    def __iter__(self):
        return iter(self.addresses)

    def __bool__(self):
        return bool(self.addresses)

    def chosen(self, pk):
        """The user's address ``pk`` (text). Raises ``Http404`` when the user has none such."""
        found = next((a for a in self.addresses if str(a.pk) == str(pk)), None)
        if found is None:
            raise Http404("No such address.")
        return found

    def default(self, kind="default_shipping"):
        """The user's default address for ``kind`` ("default_shipping" or "default_billing";
        else their first), or None."""
        return SavedAddress.objects.default_of(self.addresses, kind)


def form_data(saved, prefix="ship"):
    """The POST-like data (dict) of checkout's ``AddressForm`` (``prefix``) filled with ``saved``."""
    return {f"{prefix}-{name}": getattr(saved, name) or "" for name in ADDRESS_FIELDS}


def address_for_page(request, book):
    """``(data, saved)`` for the checkout page's address form on a GET: the address clicked
    (``?address=<id>``, 404 when not the shopper's) or the default shipping address, as form
    data, and that ``SavedAddress``; ``(None, None)`` for a guest, an empty book or
    ``?new=1`` (the shopper types another address).""" 
    pk = request.GET.get("address")
    if request.GET.get("new"):  # "Type another address": the form left empty
        return None, None
    if pk and book.user_id:
        saved = book.chosen(pk)
    elif pk:
        raise Http404("No such address.")
    else:
        saved = book.default()
    return (form_data(saved), saved) if saved is not None else (None, None)


def billing_for_page(request, book, shipping=None):
    """``(data, saved, same)`` for the checkout page's billing form on a GET: the address
    clicked for billing (``?billing=<id>``, 404 when not the shopper's), else the shopper's
    default billing address when it differs from ``shipping`` (the ``SavedAddress`` the
    shipping form was filled from, or None), as ``BillingAddressForm`` data, that
    ``SavedAddress`` and ``same`` False; ``(None, None, True)`` otherwise ("same as shipping",
    always for a guest). No query beyond the book's one read."""
    pk = request.GET.get("billing")
    if pk and book.user_id:
        saved = book.chosen(pk)
    elif pk:
        raise Http404("No such address.")
    else:
        saved = book.default("default_billing") if book else None
        if saved is not None and (saved.default_billing is False or (
                shipping is not None and saved.as_address() == shipping.as_address())):
            saved = None  # no billing default of its own, or the address shipped to: "same"
    return (form_data(saved, "bill"), saved, False) if saved is not None else (None, None, True)
