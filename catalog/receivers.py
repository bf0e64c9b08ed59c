"""Receivers of Django's model signals: an ORM save or delete of a category or a product
(the admin's product form, its delete views) bumps the catalog's version.

The managers' raw writes bump it themselves (``bump_catalog_version``);
these cover the writes Django's ORM makes, so that no catalog write leaves
a cached storefront page behind (``catalog/pagecache.py``).
"""


def catalog_changed(sender, **kwargs):
    """``post_save`` / ``post_delete`` of ``Category`` or ``Product``: one write, the bump."""
    from .managers.versions import bump_catalog_version

    bump_catalog_version()
