"""The vouchers' MongoDB operations, as raw pymongo on ``Voucher.objects``.

A use of a code is one conditional write (``claim``) and giving it back one
more (``release``); neither reads first, so two checkouts racing for the last
use of a code cannot both get it (docs/promotions.md, "The claim").
"""

import secrets

from django.db import models
from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo.collections import MongoCollectionMixin

# Codes of a batch: capitals and digits without the ones read alike (0/O, 1/I).
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


class VoucherManager(MongoCollectionMixin, models.Manager):
    """Read codes for pricing, claim and release their uses, make batches."""

    def by_codes(self, codes):
        """``{code: raw document without its claims}`` of the codes among ``codes`` (normalized
        str). One indexed read (``code $in``, an equality list: no user text reaches an
        operator); none for no codes."""
        codes = [code for code in codes if isinstance(code, str) and code]
        if not codes:
            return {}
        return {d["code"]: d for d in self.collection.find({"code": {"$in": codes}}, {"claims": 0})}

    def used_by(self, voucher_id, customer, email):
        """True when code ``voucher_id`` holds a claim of ``customer`` or ``email`` (one read)."""
        ors = [{"claims.email": email}] if email else []
        if customer:
            ors.append({"claims.customer": customer})
        if not ors:
            return False
        return self.collection.find_one({"_id": voucher_id, "$or": ors}, {"_id": 1}) is not None

    def claim(self, voucher_id, limit, cart, key, customer, email, once_per_customer):
        """Take one use of code ``voucher_id`` (whose ``limit`` as read) for attempt ``key`` of
        cart ``cart``: True when taken.

        One conditional ``update_one``: matches only while ``used < limit`` (the limit as a
        literal, not ``$expr``, so any server evaluates it alike), no claim is this
        cart's and (``once_per_customer``) none is this ``customer``'s or ``email``'s; then
        ``$inc used`` and ``$push`` the claim together. False when any condition fails.
        """
        query = {"_id": voucher_id, "used": {"$lt": int(limit)}, "claims.cart": {"$ne": cart}}
        if once_per_customer:
            if customer:
                query["claims.customer"] = {"$ne": customer}
            if email:
                query["claims.email"] = {"$ne": email}
        claim = {"cart": cart, "key": key, "customer": customer, "email": email, "at": clock.now()}
        result = self.collection.update_one(query, {"$inc": {"used": 1}, "$push": {"claims": claim}})
        return result.modified_count == 1

    def release(self, key, voucher_id=None):
        """Give back the uses claimed by attempt ``key`` (of every code, or of ``voucher_id``):
        ``$pull`` the claim and ``$inc used -1``, on the codes that hold a claim of ``key`` (so a
        second release changes nothing). One indexed write (``claims.key``); returns the count."""
        query = {"claims.key": key}
        if voucher_id is not None:
            query["_id"] = voucher_id
        result = self.collection.update_many(query, {"$pull": {"claims": {"key": key}}, "$inc": {"used": -1}})
        return result.modified_count

    def create_batch(self, template, count, prefix=""):
        """``count`` new codes (``prefix`` + 8 random characters) with ``template``'s rules (a
        ``Voucher``), its ``campaign`` set (to its own code when empty); returns the new codes.

        One ``insert_many`` (unordered); a code that happens to exist already is drawn again.
        """
        fields = {f.attname: getattr(template, f.attname) for f in template._meta.concrete_fields
                  if f.attname not in ("id", "code", "used", "claims", "created_at")}
        fields["campaign"] = template.campaign or template.code
        made = []
        while len(made) < count:
            codes = {prefix.upper() + "".join(secrets.choice(ALPHABET) for _ in range(8))
                     for _ in range(count - len(made))}
            moment = clock.now()
            documents = [{**fields, "code": code, "used": 0, "claims": [], "created_at": moment} for code in codes]
            try:
                self.collection.insert_many(documents, ordered=False)
                made.extend(codes)
            except Exception as error:  # BulkWriteError: keep what went in, draw the rest again
                failed = {documents[e["index"]]["code"] for e in getattr(error, "details", {}).get("writeErrors", [])
                          if e.get("code") == 11000}
                if not failed and not isinstance(error, DuplicateKeyError):
                    raise
                made.extend(codes - failed)
        return made

    def with_claims(self):
        """``[{"code", "used", "claims": [{cart, key, at}]}]`` of every code holding a claim (one
        read; ``claims.0`` exists: served by the ``claims.key`` index on MongoDB). For the audit
        of claims (``orders.claims.audit``), not for a page."""
        found = self.collection.find({"claims.0": {"$exists": True}},
                                     {"code": 1, "used": 1, "claims.cart": 1, "claims.key": 1, "claims.at": 1})
        return [{"code": d["code"], "used": d.get("used", 0), "claims": d.get("claims") or []} for d in found]

    def campaign_uses(self, campaign):
        """``[{"code", "used", "limit", "carts": [cart id, ...]}]`` of a campaign's codes, by code:
        the carts of the uses each holds (paid orders, or checkouts under way). One read on the
        ``campaign`` index, the claims projected to their carts."""
        found = self.collection.find({"campaign": str(campaign)},
                                     {"code": 1, "used": 1, "limit": 1, "claims.cart": 1}).sort("code", 1)
        return [{"code": d["code"], "used": d.get("used", 0), "limit": d.get("limit", 1),
                 "carts": [c["cart"] for c in d.get("claims") or [] if c.get("cart")]} for d in found]

    def campaign_codes(self, campaign):
        """``[(code, used, limit)]`` of a campaign's codes, by code (one read)."""
        return [(d["code"], d.get("used", 0), d.get("limit", 1)) for d in
                self.collection.find({"campaign": campaign}, {"code": 1, "used": 1, "limit": 1}).sort("code", 1)]


class OfferManager(MongoCollectionMixin, models.Manager):
    """The automatic offers a cart is priced with."""

    #: The active offers are kept this many seconds in the ``default`` cache (a handful of
    #: small documents): a priced cart then reads none. Saving or deleting an offer through
    #: the ORM (the admin) empties it at once in this process (``promotions.apps``); other
    #: processes see the change within this time, and checkout's total confirmation
    #: (``PricesChanged``) covers a cart priced across it.
    CACHE_SECONDS = 60
    CACHE_KEY = "promotions:live-offers"

    def active(self):
        """The active offers, highest priority first (raw documents): from the cache, else one
        indexed read (``active``, ``priority``)."""
        from django.core.cache import cache

        found = cache.get(self.CACHE_KEY)
        if found is None:
            found = self.read_active()
            cache.set(self.CACHE_KEY, found, self.CACHE_SECONDS)
        return found

    def read_active(self):
        """The active offers, highest priority first (raw documents): one indexed read, no cache."""
        return list(self.collection.find({"active": True}).sort("priority", -1))

    def forget(self):
        """Empty the cached offers (after an offer is saved or deleted)."""
        from django.core.cache import cache

        cache.delete(self.CACHE_KEY)

    def live(self, at):
        """The active offers whose dates hold ``at`` (UTC), highest priority first (``active``;
        the dates are checked here, so the query has no ``$or`` over null dates)."""
        return in_effect(self.active(), at)


def in_effect(offers, at):
    """The offers of ``offers`` (raw documents) whose dates hold ``at`` (UTC), in order."""
    found = []
    for document in offers:
        starts, ends = clock.aware(document.get("starts_at")), clock.aware(document.get("ends_at"))
        if (starts is None or starts <= at) and (ends is None or at < ends):
            found.append(document)
    return found


class GiftCardManager(MongoCollectionMixin, models.Manager):
    """Gift cards: read for pricing, debited before the PaymentIntent, credited back."""

    def by_codes(self, codes):
        """``{code: raw document without history and holds}`` of ``codes`` (normalized str). One
        read; none for no codes."""
        codes = [code for code in codes if isinstance(code, str) and code]
        if not codes:
            return {}
        return {d["code"]: d for d in self.collection.find({"code": {"$in": codes}}, {"history": 0, "holds": 0})}

    def debit(self, card_id, amount, key, at):
        """Take ``amount`` cents (> 0) off card ``card_id`` for checkout attempt ``key``: True when
        taken. One conditional ``update_one``: ``balance >= amount``, ``expires_at > at``, no
        hold of ``key`` yet; ``$inc`` the balance down, ``$push`` the history line and the hold."""
        entry = {"at": at, "amount": -int(amount), "key": key, "note": "checkout"}
        result = self.collection.update_one(
            {"_id": card_id, "balance": {"$gte": int(amount)}, "expires_at": {"$gt": at}, "holds.key": {"$ne": key}},
            {"$inc": {"balance": -int(amount)}, "$push": {"history": entry, "holds": {"key": key, "amount": int(amount)}}})
        return result.modified_count == 1

    def credit(self, key, note="payment failed"):
        """Give back every debit of attempt ``key`` still held (its payment failed or was voided):
        one read of the cards holding it, then per card one conditional write (only while the
        hold is there, so twice credits once). Returns the cents given back."""
        given = 0
        for card in self.collection.find({"holds.key": key}, {"holds": 1}):
            for hold in card["holds"]:
                if hold["key"] != key:
                    continue
                entry = {"at": clock.now(), "amount": hold["amount"], "key": key, "note": note}
                done = self.collection.update_one(
                    {"_id": card["_id"], "holds.key": key},
                    {"$pull": {"holds": {"key": key}}, "$inc": {"balance": hold["amount"]}, "$push": {"history": entry}})
                given += hold["amount"] if done.modified_count else 0
        return given

    def with_holds(self):
        """``[{"code", "holds": [{key, amount}], "history": [{key, at}]}]`` of every card holding a
        debit not settled (one read). For the audit of claims (``orders.claims.audit``)."""
        found = self.collection.find({"holds.0": {"$exists": True}},
                                     {"code": 1, "holds": 1, "history.key": 1, "history.at": 1})
        return [{"code": d["code"], "holds": d.get("holds") or [], "history": d.get("history") or []} for d in found]

    def settle(self, key):
        """Attempt ``key`` was paid: drop its holds (the debits stay in the history). One write."""
        self.collection.update_many({"holds.key": key}, {"$pull": {"holds": {"key": key}}})

    def refund_to(self, code, amount, note):
        """Credit ``amount`` cents back to card ``code`` (a refund of what it paid). One write."""
        entry = {"at": clock.now(), "amount": int(amount), "key": "", "note": note[:200]}
        return self.collection.update_one({"code": code}, {"$inc": {"balance": int(amount)},
                                                           "$push": {"history": entry}}).modified_count == 1
