"""The products the inventory sells, as the catalog hands them over: the one way into the
catalog from below it.

The inventory sits below the catalog (``docs/architecture.md``: the catalog reads stock to
show it; the inventory imports no catalog module). Two places here still need a product by
its SKU: adding a line to a cart copies its title and price (``inventory/views.py``), and
``restock`` refuses a SKU that is no product. The catalog registers its reader at start-up
(``catalog.apps.CatalogConfig.ready``) and they call it through this module.
"""


class UnknownSku(LookupError):
    """No product sells this SKU (its own or one of its variants')."""


_reader = {}


def register(by_sku, missing, page_url):
    """Hand over the catalog's reader: ``by_sku(sku)`` -> the product selling ``sku``, raising
    ``missing`` (an exception class) when none does, and ``page_url(product, sku)`` -> the URL
    of its page with that SKU chosen. Called by ``catalog.apps.CatalogConfig.ready``; a second
    call replaces the first."""
    _reader.update(by_sku=by_sku, missing=missing, page_url=page_url)


def by_sku(sku):
    """The product selling ``sku`` (a ``catalog.models.Product``: ``title``, ``sellable_skus``,
    ``line_details(sku)``), one read of ``products``. Raises ``UnknownSku``."""
    try:
        return _reader["by_sku"](sku)
    except _reader["missing"] as error:
        raise UnknownSku(sku) from error


def page_url(product, sku):
    """The URL of ``product``'s page with ``sku`` chosen (its variant's, or its own page)."""
    return _reader["page_url"](product, sku)
