"""Receivers of Django's model signals, for the catalog writes Django's ORM makes outside the
managers: each hands over to the catalog's write owner (``catalog/store/writes.py``).

An ORM delete of a product (the admin's delete views, a queryset's delete) marks its
categories' kept counts before and recounts them after, then bumps its versions; an ORM
save or delete of a category (the admin goes through ``Category.writes`` instead) bumps
its versions. An ORM save of a product goes through ``Product.save``, which does its own.
"""

from catalog.store.writes import category_saved
from catalog.store.writes import product_deleting as deleting
from catalog.store.writes import product_deleted as deleted


def category_changed(sender, instance, **kwargs):
    """``post_save`` / ``post_delete`` of a ``Category``: ``writes.category_saved``."""
    category_saved(instance)


def product_deleting(sender, instance, **kwargs):
    """``pre_delete`` of a ``Product``: ``writes.product_deleting`` (one write)."""
    instance._listing_mark = deleting(instance)


def product_deleted(sender, instance, **kwargs):
    """``post_delete`` of a ``Product``: ``writes.product_deleted`` (recount, bump)."""
    deleted(instance, getattr(instance, "_listing_mark", None))
