"""System checks of the inventory settings (``manage.py check``, and every start of the shop).

``inventory.W001``: the per-client cap lets one client hold every unit of a SKU
stocked with ``INVENTORY_DEFAULT_STOCK`` units (the stock ``load_catalog`` gives
each product), so a script from one address could empty the demo catalog's
products: the cap protects nothing at that stock (``inventory.limits``).
"""

from django.conf import settings
from django.core.checks import Warning, register

from .limits import cap_for_stock


@register("inventory")
def check_client_cap(app_configs=None, **kwargs):
    """A list with ``inventory.W001`` when ``cap_for_stock(INVENTORY_DEFAULT_STOCK)`` units are
    the whole of that stock, else an empty list."""
    stock = settings.INVENTORY_DEFAULT_STOCK
    if stock <= 1 or cap_for_stock(stock) < stock:
        return []
    return [Warning(
        f"One client may hold all {stock} units of a SKU with the default stock "
        f"(INVENTORY_DEFAULT_STOCK): the per-client cap protects nothing there.",
        hint="Lower CART_MAX_SKU_SHARE_PER_CLIENT (25 keeps a quarter) or CART_MAX_SKU_UNITS_PER_CLIENT.",
        id="inventory.W001")]
