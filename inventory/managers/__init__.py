"""The managers of the inventory app, one module per collection: ``Inventory.objects``
(``stock.py``), ``Cart.objects`` (``carts.py``) and ``ExpiryRun.objects`` (``runs.py``);
``expiry.py`` and ``cleanup.py`` hold the expiry of carts and the clean-up of
reservations (mixins of ``Cart.objects`` and ``Inventory.objects``), ``rules.py`` what
they share."""

from .carts import CartManager
from .runs import ExpiryRunManager
from .stock import InventoryManager

__all__ = ["CartManager", "ExpiryRunManager", "InventoryManager"]
