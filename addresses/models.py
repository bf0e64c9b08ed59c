"""Saved addresses: a shopper's address book (``saved_addresses``, one document per address).

::

    {_id, user_id, label, name, line1, line2, city, postcode, country, region,
     default_shipping, default_billing, created_at}

A collection of its own with an index on ``user_id`` (the account page and the checkout
read a shopper's addresses in one query on it) rather than a list inside the user
document: Django's ``auth_user`` stays Django's, and an address is edited, deleted and
made the default on its own. Fields as ``orders.models.Address`` (an order copies them:
its snapshot). Change them only through ``SavedAddress.objects`` (``managers.py``),
which keeps every query to the owner's own addresses.
"""

from django.db import models

from .formatting import address_lines
from .managers import SavedAddressManager

ADDRESS_FIELDS = ("name", "line1", "line2", "city", "postcode", "country", "region")


class SavedAddress(models.Model):
    """One address of the account ``user_id`` (the user's pk as text, as ``Order.user_id``).
    ``default_shipping`` / ``default_billing``: at most one of each per user is meant true
    (``SavedAddressManager.make_default``); checkout offers the shipping default first."""

    user_id = models.CharField(max_length=64)
    label = models.CharField(max_length=40, blank=True, default="", help_text='e.g. "Home", "Work"')
    name = models.CharField("full name", max_length=200)
    line1 = models.CharField("address", max_length=200)
    line2 = models.CharField("address (line 2)", max_length=200, blank=True, default="")
    city = models.CharField("town or city", max_length=100)
    postcode = models.CharField(max_length=20, blank=True, default="")
    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2")
    region = models.CharField(max_length=3, blank=True, default="", help_text="state or province code, e.g. NY")
    default_shipping = models.BooleanField(default=False)
    default_billing = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SavedAddressManager()

    class Meta:
        db_table = "saved_addresses"
        indexes = [models.Index(fields=["user_id"], name="saved_address_user")]
        ordering = ["created_at"]
        verbose_name_plural = "saved addresses"

    def as_address(self):
        """The address as a dict of ``orders.models.Address``'s fields (what checkout's
        ``AddressForm`` takes and an order copies)."""
        return {name: getattr(self, name) or "" for name in ADDRESS_FIELDS}

    def lines(self):
        """The address as its country prints it (``formatting.address_lines``)."""
        return address_lines(self.as_address())

    def __str__(self):
        return ", ".join(self.lines())
