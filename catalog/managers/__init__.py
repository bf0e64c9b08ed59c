"""The catalog's managers: ``Category.objects``, ``Product.objects`` (raw pymongo) and
``CatalogVersion.objects`` (the version every catalog write changes)."""

from .categories import CategoryManager
from .products import ProductManager
from .versions import CatalogVersionManager

__all__ = ["CatalogVersionManager", "CategoryManager", "ProductManager"]
