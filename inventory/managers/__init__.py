"""The managers of the inventory app, one module per collection: ``Inventory.objects``
(``stock.py``) and ``Cart.objects`` (``carts.py``); ``recovery.py`` holds their
expiry and cleanup."""

from .carts import CartManager
from .stock import InventoryManager

__all__ = ["CartManager", "InventoryManager"]
