"""The orders app's indexes: ``INDEXES``, collected by ``core.mongo.indexes.registry``.

They are ``Order.Meta.indexes`` (an account's orders newest first, the
admin's status filter, the search by email) and ``PaymentAttempt.Meta.indexes``
(recovery's sweep by status and age, a cart's attempts), created by Django's
migrations; listed here so that ``ensure_indexes`` checks them too. The
unique ``number`` and ``cart_id`` indexes come from the fields (see
``docs/sharding.md`` for what becomes of them on a sharded cluster).
"""

from core.mongo.indexes import model_indexes

from .models import Order, PaymentAttempt, ReturnRequest

INDEXES = model_indexes(Order, PaymentAttempt, ReturnRequest)
# Refunds whose units are still due back in stock (orders.returns.recover: a crash between a
# refund of lines and its restock); multikey, few entries match "due". Migration 0009_returns.
RESTOCK_DUE = ([("refunds.restock", 1)], {"name": "order_refund_restock"})
INDEXES["orders"].append(RESTOCK_DUE)


# The sharding plan (core.mongo.sharding, docs/sharding.md): orders on a hashed _id (ObjectIds
# grow); their unique number and cart_id are replaced by plain indexes first (what guards
# those values then: docs/sharding.md); the order counter and the payment ledger stay unsharded.
SHARD_KEYS = [("orders", {"_id": "hashed"}, False)]
UNIQUE_BEFORE_SHARDING = {"orders": ("number", "cart_id")}
UNSHARDED = ("counters", "payment_attempts")
