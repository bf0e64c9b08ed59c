"""Receivers of Django's model signals: an ORM save or delete of a category or a product
(the admin's product form, its delete views) bumps the catalog's version, and an ORM delete
of a product marks and recounts its categories' kept counts (``ListingCount.objects``; a
save does that in ``Product.save``).

The managers' raw writes bump it themselves (``catalog.managers.siblings.bump_catalog_version``);
these cover the writes Django's ORM makes, so that no catalog write leaves
a cached storefront page behind (``catalog/cache.py``).
"""


def catalog_changed(sender, **kwargs):
    """``post_save`` / ``post_delete`` of ``Category`` or ``Product``: one write, the bump."""
    from .managers.siblings import bump_catalog_version

    bump_catalog_version()


def product_deleting(sender, instance, **kwargs):
    """``pre_delete`` of a ``Product``: mark the categories it is listed in (one write)."""
    from .models import ListingCount

    instance._listing_mark = ListingCount.objects.mark(instance.listed_in or [])


def product_deleted(sender, instance, **kwargs):
    """``post_delete`` of a ``Product``: recount and unmark the categories it was listed in."""
    from .models import ListingCount

    moment = getattr(instance, "_listing_mark", None)
    if moment is not None:
        ListingCount.objects.settle(instance.listed_in or [], moment)
