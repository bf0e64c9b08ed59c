"""The managers of the inventory app, one module per collection: ``Inventory.objects``
(``stock.py``), ``Cart.objects`` (``carts.py``) and ``ExpiryRun.objects`` (``runs.py``);
``recovery.py`` holds the expiry and cleanup."""

from .carts import CartManager
from .runs import ExpiryRunManager
from .stock import InventoryManager

__all__ = ["CartManager", "ExpiryRunManager", "InventoryManager"]
