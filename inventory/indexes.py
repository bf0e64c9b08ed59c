"""The inventory app's indexes: ``INDEXES``, each ``(keys, options)`` as pymongo's
``create_index`` takes them, collected by ``core.mongo.indexes.registry``.

The reservations' indexes are created by ``inventory``'s migration 0002 (its
own literal copy); the carts' come from ``Cart.Meta.indexes`` (Django's
migrations create them) and are listed here so that ``ensure_indexes``
checks them too.
"""

from pymongo import ASCENDING

from core.mongo.indexes import model_indexes

from .models import Cart

INDEXES = {
    # The "Inventory Management" use case: ``carted.cart_id`` serves checkout's and expiry's ``update_many``
    # over the reservations of one cart; ``carted.timestamp`` serves
    # ``cleanup_inventory``.
    "inventory": [
        ([("carted.cart_id", ASCENDING)], {"name": "carted_cart_id"}),
        ([("carted.timestamp", ASCENDING)], {"name": "carted_timestamp"}),
        # The SKUs sold out (``skus_available``): the facets' "in stock" (migration 0007).
        ([("qty", ASCENDING)], {"name": "qty"}),
    ],
    # (status, last_modified) for expiry; (user_id, status) for an account's cart.
    **model_indexes(Cart),
}


# The sharding plan (core.mongo.sharding, docs/sharding.md): inventory on its _id (the SKU);
# carts on a hashed _id (a ranged key on growing ids would send every insert to one chunk).
SHARD_KEYS = [("inventory", {"_id": 1}, False), ("carts", {"_id": "hashed"}, False)]
UNSHARDED = ("expiry_runs",)
