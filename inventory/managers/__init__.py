"""The managers of the inventory app, one per job: ``Inventory.objects`` (``stock.py``: reserve,
change, release, restock), ``Inventory.cleanup`` (``cleanup.py``: the clean-up of
reservations a crash left), ``Inventory.returns`` (``returns.py``: the expiry's returns by
SKU), ``Cart.objects`` (``carts.py``), ``Cart.expiry`` (``expiry.py``), ``Cart.retention``
(``retention.py``: ``purge_carts``) and ``ExpiryRun.objects`` (``runs.py``); ``rules.py``
holds what they share."""

from .carts import CartManager
from .cleanup import ReservationCleanupManager
from .expiry import CartExpiryManager
from .retention import CartRetentionManager
from .returns import ReservationReturnManager
from .runs import ExpiryRunManager
from .stock import InventoryManager

__all__ = ["CartExpiryManager", "CartManager", "CartRetentionManager", "ExpiryRunManager", "InventoryManager",
           "ReservationCleanupManager", "ReservationReturnManager"]
