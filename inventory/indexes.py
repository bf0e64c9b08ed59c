"""The inventory app's indexes: ``INDEXES``, each ``(keys, options)`` as pymongo's
``create_index`` takes them, collected by ``shop.mongo.indexes.registry``.

The reservations' indexes are created by ``inventory``'s migration 0002 (its
own literal copy); the carts' come from ``Cart.Meta.indexes`` (Django's
migrations create them) and are listed here so that ``ensure_indexes``
checks them too.
"""

from pymongo import ASCENDING

from shop.mongo.indexes import model_indexes

from .models import Cart

INDEXES = {
    # Seed 003: ``carted.cart_id`` serves checkout's and expiry's ``update_many``
    # over the reservations of one cart; ``carted.timestamp`` serves
    # ``cleanup_inventory``.
    "inventory": [
        ([("carted.cart_id", ASCENDING)], {"name": "carted_cart_id"}),
        ([("carted.timestamp", ASCENDING)], {"name": "carted_timestamp"}),
    ],
    # (status, last_modified) for expiry; (user_id, status) for an account's cart.
    **model_indexes(Cart),
}
