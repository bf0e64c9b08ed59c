"""``SavedAddress.objects``: a shopper's address book, every query scoped to its owner.

Each method takes the owner's ``user_id`` (text) and matches it as an equality, so an
address of another account is not found (``DoesNotExist``, which the views turn into 404),
never changed. Reads use the ``saved_address_user`` index.
"""

from django.db import models


class SavedAddressManager(models.Manager):
    """The address book's reads and writes (ORM: django-mongodb-backend)."""

    def for_user(self, user_id):
        """The addresses of ``user_id``, oldest first (list; one read on ``user_id``)."""
        return list(self.filter(user_id=str(user_id)).order_by("created_at", "pk"))

    def get_for_user(self, user_id, pk):
        """The address ``pk`` (an ObjectId's 24 hex digits, as text) if ``user_id`` owns it
        (one read). Raises ``DoesNotExist`` for another account's, an unknown or a malformed id."""
        from bson import ObjectId
        from bson.errors import InvalidId

        try:
            oid = ObjectId(str(pk))
        except (InvalidId, TypeError):
            raise self.model.DoesNotExist("No such address.") from None
        return self.get(pk=oid, user_id=str(user_id))

    def add(self, user_id, address, label=""):
        """Save ``address`` (a dict of ``ADDRESS_FIELDS``, validated) for ``user_id``; the
        account's first address becomes its shipping and billing default. Returns it
        (a read and a write)."""
        first = not self.filter(user_id=str(user_id)).exists()
        return self.create(user_id=str(user_id), label=label, default_shipping=first,
                           default_billing=first, **address)

    def change(self, user_id, pk, address, label=""):
        """Replace the fields of address ``pk`` of ``user_id`` with ``address`` (validated).
        One conditional write; raises ``DoesNotExist`` when ``user_id`` has no such address."""
        if not self.filter(pk=self.get_for_user(user_id, pk).pk, user_id=str(user_id)).update(label=label, **address):
            raise self.model.DoesNotExist("No such address.")

    def remove(self, user_id, pk):
        """Delete address ``pk`` of ``user_id``; a default it was passes to the oldest address
        left. Raises ``DoesNotExist`` when ``user_id`` has no such address."""
        gone = self.get_for_user(user_id, pk)
        gone.delete()
        for kind in ("default_shipping", "default_billing"):
            if getattr(gone, kind):
                heir = self.filter(user_id=str(user_id)).order_by("created_at", "pk").first()
                if heir is not None:
                    self.make_default(user_id, heir.pk, kind)

    def make_default(self, user_id, pk, kind):
        """Make address ``pk`` of ``user_id`` its default for ``kind`` ("default_shipping" or
        "default_billing") and no other: a write setting it (conditional on the owner), then
        one clearing the flag on the owner's others. Raises ``DoesNotExist`` when ``user_id``
        has no such address, ``ValueError`` for another ``kind``."""
        if kind not in ("default_shipping", "default_billing"):
            raise ValueError(f"Not a kind of default: {kind!r}.")
        target = self.get_for_user(user_id, pk)
        if not self.filter(pk=target.pk, user_id=str(user_id)).update(**{kind: True}):
            raise self.model.DoesNotExist("No such address.")
        self.filter(user_id=str(user_id), **{kind: True}).exclude(pk=target.pk).update(**{kind: False})

    @staticmethod
    def default_of(addresses, kind="default_shipping"):
        """The address of ``addresses`` (a user's, from ``for_user``) marked default for
        ``kind``, else the first, else None. No query."""
        return next((a for a in addresses if getattr(a, kind)), addresses[0] if addresses else None)
