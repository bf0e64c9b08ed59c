"""Signals of the catalog, for other apps (analytics records views); the storefront imports no listener."""

from django.dispatch import Signal

#: Sent when a shopper opens a product page (``catalog.storefront.views.product``, or its page
#: kept whole: ``catalog.storefront.pages``). Keyword arguments:
#:   sku      the SKU of the product shown (str)
#:   request  the ``HttpRequest`` (its user or session identifies the shopper)
product_viewed = Signal()
