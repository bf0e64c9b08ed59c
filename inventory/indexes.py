"""The inventory's indexes beyond those its models declare: each ``(keys, options)`` as
pymongo's ``create_index`` takes them."""

from django.db import connections
from pymongo import ASCENDING

# Indexes seed 003 needs beyond the models' own: ``carted.cart_id`` serves
# checkout's and expiry's ``update_many`` over the reservations of one cart;
# ``carted.timestamp`` serves ``cleanup_inventory``. (carts (status,
# last_modified) is on the model.)
INVENTORY_INDEXES = [
    ([("carted.cart_id", ASCENDING)], {"name": "carted_cart_id"}),
    ([("carted.timestamp", ASCENDING)], {"name": "carted_timestamp"}),
]


def create_inventory_indexes(using="default"):
    """Create ``INVENTORY_INDEXES`` on ``inventory`` (idempotent); returns the index names."""
    collection = connections[using].get_collection("inventory")
    return [collection.create_index(keys, **options) for keys, options in INVENTORY_INDEXES]
