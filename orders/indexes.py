"""The orders app's indexes: ``INDEXES``, collected by ``core.mongo.indexes.registry``.

They are ``Order.Meta.indexes`` (an account's orders newest first, the
admin's status filter, the search by email) and ``PaymentAttempt.Meta.indexes``
(recovery's sweep by status and age, a cart's attempts), created by Django's
migrations; listed here so that ``ensure_indexes`` checks them too. The
unique ``number`` and ``cart_id`` indexes come from the fields (see
``docs/sharding.md`` for what becomes of them on a sharded cluster).
"""

from core.mongo.indexes import model_indexes

from .models import Invoice, Order, PaymentAttempt, ReturnRequest

INDEXES = model_indexes(Order, PaymentAttempt, ReturnRequest, Invoice)
# Refunds whose units are still due back in stock (orders.returns.recover: a crash between a
# refund of lines and its restock); multikey, few entries match "due". Migration 0009_returns.
RESTOCK_DUE = ([("refunds.restock", 1)], {"name": "order_refund_restock"})
#: Refunds by their time: the recovery of missing credit notes looks at recent refunds only
#: (orders.invoices.issue_missing). A multikey index on an embedded array's field, which
#: Meta.indexes cannot name; the orders migration 0010_invoices creates it.
REFUND_AT_INDEX = ([("refunds.at", 1)], {"name": "order_refund_at"})
INDEXES["orders"].extend([RESTOCK_DUE, REFUND_AT_INDEX])


# The sharding plan (core.mongo.sharding, docs/sharding.md): orders on a hashed _id (ObjectIds
# grow); their unique number and cart_id are replaced by plain indexes first (what guards
# those values then: docs/sharding.md); the order counter and the payment ledger stay unsharded.
SHARD_KEYS = [("orders", {"_id": "hashed"}, False)]
UNIQUE_BEFORE_SHARDING = {"orders": ("number", "cart_id")}
# Invoices stay unsharded: their unique number, source and (kind, year, seq) indexes are what
# give a sale one document and a year gapless numbers (docs/after-the-sale.md#invoices).
UNSHARDED = ("counters", "payment_attempts", "invoices")
