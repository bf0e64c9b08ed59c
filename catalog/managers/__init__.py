"""The catalog's managers: ``Category.objects``, ``Product.objects`` (raw pymongo) and
``CatalogVersion.objects`` (the version every catalog write changes), ``ListingCount.objects``
(the number of products each category lists), ``FacetCount.objects`` (its facet counts per
issue decade), ``ProductType.objects`` (the types staff define)."""

from .categories import CategoryManager
from .counts import ListingCountManager
from .facet_counts import FacetCountManager
from .products import ProductManager
from .types import ProductTypeManager
from .versions import CatalogVersionManager

__all__ = ["CatalogVersionManager", "CategoryManager", "FacetCountManager", "ListingCountManager", "ProductManager", "ProductTypeManager"]
