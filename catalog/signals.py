"""Signals of the catalog, for other apps (analytics records views); the storefront imports no listener."""

from django.dispatch import Signal

#: Sent when a shopper opens a product page (``catalog.storefront.views.product``). Keyword arguments:
#:   product  the ``Product`` shown
#:   request  the ``HttpRequest`` (its user or session identifies the shopper)
product_viewed = Signal()
