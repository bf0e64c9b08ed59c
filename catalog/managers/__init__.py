"""The catalog's managers: ``Category.objects``, ``Product.objects`` (raw pymongo) and
``CatalogVersion.objects`` (the version every catalog write changes), ``ListingCount.objects``
(the number of products each category lists)."""

from .categories import CategoryManager
from .counts import ListingCountManager
from .products import ProductManager
from .versions import CatalogVersionManager

__all__ = ["CatalogVersionManager", "CategoryManager", "ListingCountManager", "ProductManager"]
