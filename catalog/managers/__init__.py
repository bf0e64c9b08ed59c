"""The catalog's managers: ``Category.objects`` and ``Product.objects`` (raw pymongo)."""

from .categories import CategoryManager
from .products import ProductManager

__all__ = ["CategoryManager", "ProductManager"]
