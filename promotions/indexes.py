"""The promotions app's indexes: ``claims.key`` serves releasing the claims of one checkout
attempt (``Voucher.objects.release``, an ``update_many`` over the codes it claimed). The
unique ``code`` index comes from the field."""

from pymongo import ASCENDING

INDEXES = {"vouchers": [([("claims.key", ASCENDING)], {"name": "claims_key"})]}
