"""The promotions app's indexes: ``claims.key`` serves releasing the claims of one checkout
attempt (``Voucher.objects.release``, an ``update_many`` over the codes it claimed); the
campaign's codes (``campaign``: its report and CSV); the
offers' ``Meta.indexes`` (``active``, ``priority``: ``Offer.objects.live``), listed so that
``ensure_indexes`` checks them. The unique ``code`` index comes from the field."""

from pymongo import ASCENDING

from core.mongo.indexes import model_indexes

from .models import Offer

_CLAIMS = {"vouchers": [([("claims.key", ASCENDING)], {"name": "claims_key"}),
                        # A campaign's codes: its CSV and its report (Voucher.objects.campaign_uses).
                        ([("campaign", ASCENDING)], {"name": "campaign"})],
           # A checkout attempt's gift-card holds: credited back or settled (GiftCard.objects).
           "gift_cards": [([("holds.key", ASCENDING)], {"name": "holds_key"})]}

INDEXES = {**_CLAIMS, **model_indexes(Offer)}
