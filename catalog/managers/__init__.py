"""The catalog's managers: ``Category.objects``, ``Product.objects`` (raw pymongo) and
``CatalogVersion.objects`` (the version every catalog write changes), ``ListingCount.objects``
(the number of products each category lists), ``ProductType.objects`` (the types staff define)."""

from .categories import CategoryManager
from .counts import ListingCountManager
from .products import ProductManager
from .types import ProductTypeManager
from .versions import CatalogVersionManager

__all__ = ["CatalogVersionManager", "CategoryManager", "ListingCountManager", "ProductManager", "ProductTypeManager"]
