"""The products the inventory sells, as the catalog hands them over: the one way into the
catalog from below it.

The inventory sits below the catalog (``docs/architecture.md``: the catalog reads stock to
show it; the inventory imports no catalog module). Three places here still need products by
their SKUs: adding a line to a cart copies its title and price (``inventory/views.py``), the
cart page draws each line's cover (``line_covers``), and ``restock`` refuses a SKU that is no
product. The catalog registers its reader at start-up
(``catalog.apps.CatalogConfig.ready``) and they call it through this module.
"""


class UnknownSku(LookupError):
    """No product sells this SKU (its own or one of its variants')."""


_reader = {}


def register(by_sku, missing, page_url, line_covers):
    """Hand over the catalog's reader: ``by_sku(sku)`` -> the product selling ``sku``, raising
    ``missing`` (an exception class) when none does, ``page_url(product, sku)`` -> the URL
    of its page with that SKU chosen, and ``line_covers(skus)`` -> ``{sku: cover}`` (see
    ``line_covers`` below). Called by ``catalog.apps.CatalogConfig.ready``; a second call
    replaces the first."""
    _reader.update(by_sku=by_sku, missing=missing, page_url=page_url, line_covers=line_covers)


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


def line_covers(skus):
    """``{sku: cover}`` for the SKUs among ``skus`` (a list of str) that a product sells, one
    read of ``products`` (``Product.objects.line_covers``): ``cover.picture`` is what the
    catalog's ``{% cover %}`` tag draws for the line (the variant's own image when it has one,
    else the product's cover), ``cover.variant`` its options as text. A SKU no product sells
    is left out."""
    return _reader["line_covers"](skus)
