"""The orders app's indexes: ``INDEXES``, collected by ``shop.mongo.indexes.registry``.

They are ``Order.Meta.indexes`` (an account's orders newest first, the
admin's status filter, the search by email) and ``PaymentAttempt.Meta.indexes``
(recovery's sweep by status and age, a cart's attempts), created by Django's
migrations; listed here so that ``ensure_indexes`` checks them too. The
unique ``number`` and ``cart_id`` indexes come from the fields (see
``docs/sharding.md`` for what becomes of them on a sharded cluster).
"""

from shop.mongo.indexes import model_indexes

from .models import Order, PaymentAttempt

INDEXES = model_indexes(Order, PaymentAttempt)
