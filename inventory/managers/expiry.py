"""Carts that expire: the "Inventory Management" use case's "Returning Inventory from Timed-Out Carts".

``Cart.expiry`` (``CartExpiryManager``): ``expire``
(``expire_carts``), ``expire_cart`` (staff), ``expire_past_max_age`` (a cart
started more than ``CART_MAX_AGE`` ago) and ``reclaim_abandoned`` (an add short of
stock first expires the idle carts holding that SKU). The carts are expired here;
their reservations go back through ``Inventory.returns.return_reservations``.
Which carts are live and the batch sizes are ``rules``'.
"""

import datetime
import secrets

from django.apps import apps
from django.conf import settings
from django.db import models
from pymongo import UpdateMany

from core import clock
from core.mongo.collections import MongoCollectionMixin

from . import rules
from .rules import TAKEN_STATUSES, started

# Carts grouped by SKU per pass of an expiry: each inventory document is rewritten once per chunk.
# Only their ids are kept (about 20 MB for 100,000 carts of 1 to 3 lines); a run of up to this
# many carts rewrites each SKU's document once (measured: 100,000 carts over 300 SKUs, 4.9 s of
# inventory writes in one chunk, 9.6 s in two of 50,000).
EXPIRY_CHUNK = 100_000


def _chunks(ids):
    """``ids`` (a list) in lists of at most ``rules.IDS_PER_READ``."""
    return [ids[i:i + rules.IDS_PER_READ] for i in range(0, len(ids), rules.IDS_PER_READ)]


def _carts():
    """``Cart.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Cart").objects


def _stock():
    """``Inventory.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Inventory").objects


def _returns():
    """``Inventory.returns``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "Inventory").returns


def _runs():
    """``ExpiryRun.objects``, from the app registry (``inventory.models`` imports the managers)."""
    return apps.get_model("inventory", "ExpiryRun").objects


def past_max_age_filter(born_before, extra=None):
    """The carts filter of the active carts created before ``born_before`` (aware UTC), and
    ``extra`` (more conditions, e.g. ``{_id: {$in: ids}}``: the expiry names the carts it found
    on ``status_last_modified``, ``CartExpiryManager.touched_since``).

    An equality on ``status``, not ``$in``: SecantusDB 0.7.0b3 plans ``status: {$in: [...]}``
    as a collection scan, MongoDB as index bounds (docs/local-server-differences.md:
    local-server difference 17). Carts without ``created_at`` do not match (``date_undated``
    dates them first).
    """
    return {"status": "active", "created_at": {"$lt": born_before}, **(extra or {})}


class CartExpiryManager(MongoCollectionMixin, models.Manager):
    """``Cart.expiry``: the expiry of carts (its ``collection`` is ``carts``).

    Every expiry is a *run* with a random id, in three steps:

    1. the run is recorded in ``expiry_runs`` (``ExpiryRun.objects.start``:
       its ``stamp``, ``threshold`` and ``cart_ids``);
    2. one ``update_many`` per taken status (one ``bulk_write``) makes its carts ``expired``, each tagged
       with the run (``expiry_run``) and ``last_modified`` = the run's
       ``stamp``: one write per cart (the local SecantusDB server costs
       about 0.3 to 0.7 ms per document an ``update_many`` changes, so a
       second status write per cart doubled the run);
    3. one read streams the run's carts (``{status: 'expired',
       last_modified: stamp, expiry_run: run}``: an equality on both fields
       of the ``status_last_modified`` index), their reservations go back
       grouped by SKU (``Inventory.returns.return_reservations``: a
       compare-and-set per SKU, so nothing is returned twice), and the run's
       document is deleted (``ExpiryRun.objects.finish``).

    A run killed at any step leaves its document: the next ``expire``
    finishes it (``_expire_run`` with ``adopt``: its carts are marked again
    on its own terms, then read back and returned with this run's). A cart is ``expired`` from its one write on, so
    no shopper can change it or check it out in between (the same as the
    ``expiring`` of earlier versions, whose half-done carts the next run
    still takes: ``TAKEN_STATUSES``).
    """

    # -- the "Inventory Management" use case "Returning Inventory from Timed-Out Carts" -------------

    def reclaim_abandoned(self, sku, timeout=None):
        """Expire the live carts holding a reservation of ``sku`` that have been idle for
        ``timeout`` seconds (default ``settings.CART_TIMEOUT``), returning their stock.

        The "Inventory Management" use case "Returning Inventory from Timed-Out Carts", narrowed to the
        carts holding one SKU: one read of the SKU's reservations, then, only
        when some are older than the timeout, the carts that are really idle
        (their ``last_modified``, not the reservation's time, decides) are
        expired as ``expire`` does (a run limited to those cart ids: 6 more
        round trips). Returns how many carts were expired.
        """
        timeout = settings.CART_TIMEOUT if timeout is None else timeout
        threshold = clock.now() - datetime.timedelta(seconds=timeout)
        stale = _stock().reserved_before(sku, threshold)
        if not stale:
            return 0
        return self._expire_run(threshold, cart_ids=list(stale))[0]["expired"]

    def expire(self, timeout, progress=None, max_age=None):
        """The "Inventory Management" use case ``expire_carts``: expire carts unchanged for ``timeout`` seconds, and active
        carts started more than ``max_age`` seconds ago (default ``settings.CART_MAX_AGE``)
        however recently touched; return their stock.

        A run as described in the class docstring, over the active carts
        idle since before now - ``timeout`` or created before now -
        ``max_age`` (never a pending one: a checkout
        that crashed after its lock is ``reconcile_payments``' to settle),
        which first reads the unfinished runs (``ExpiryRun.objects.unfinished``)
        and, after marking its own carts, finishes them too. The idle carts
        are marked first; then the active carts left from before creation
        times were recorded get their ``last_modified`` as ``created_at``
        (``date_undated``: one ``update_many``, which changes only such
        carts, once each, so an idle undated cart is written once, not
        twice); then the carts too old are marked.
        Round trips with no unfinished run: 1 read of the runs, 1 insert,
        1 ``bulk_write`` of an ``update_many`` per taken status (idle), 1 read of the active
        carts left (``touched_since``),
        per 100 of them undated 1 update (``date_undated``) and per 100 too old 1
        ``update_many`` (two marking writes, not one with an ``$or``, which the local
        server runs as a scan), 1 streamed
        read of the carts (1,000 per round trip), per ``EXPIRY_CHUNK`` carts and 100 SKUs touched 1 read + 1
        ``bulk_write``, 1 delete; each unfinished run adds 1 ``update_many``
        and 1 read. The cart writes grow with the carts (one each), the
        inventory writes with the SKUs touched.

        Safe to run twice or concurrently (a concurrent run's carts may be
        returned by both: each SKU's compare-and-set returns an entry once).
        Returns ``{'expired': n, 'returned': n}``: carts whose expiry this run
        finished (an adopted run's included) and reservations returned. A
        reservation made after its SKU was written (an add in flight) is
        returned by ``cleanup_inventory``. ``progress(n)``, when given, is
        called as carts are done (``n`` carts each time).
        """
        max_age = settings.CART_MAX_AGE if max_age is None else max_age
        moment = clock.now()
        threshold = moment - datetime.timedelta(seconds=timeout)
        born_before = moment - datetime.timedelta(seconds=max_age)
        return self._expire_run(threshold, born_before=born_before, adopt=True, progress=progress)[0]

    def touched_since(self, threshold):
        """The active carts touched since ``threshold`` (aware UTC): ``[{_id, created_at?,
        last_modified}]``, one streamed read.

        Once a run has expired the carts idle before its threshold, these are the only active
        carts left, so the carts past their maximum age and the undated ones are found among
        them. The filter names exactly the fields of ``status_last_modified`` (an equality and
        a range): SecantusDB 0.7.0b3 reads a filter with a range and a field outside the index
        as a collection scan (1.7 s for 20,000 carts against 3 ms), MongoDB with the index
        (local-server difference 24). The carts keep no index on ``created_at``: on the local
        server each index of ``carts`` costs every cart a run writes (difference 23).
        """
        return list(self.collection.find(
            {"status": "active", "last_modified": {"$gte": threshold}},
            {"created_at": 1, "last_modified": 1}, batch_size=rules.BATCH_SIZE))

    def date_undated(self, cart_ids):
        """Give the active carts among ``cart_ids`` that have no ``created_at`` (started before it
        was recorded) their ``last_modified`` as ``created_at``, so the maximum age counts from
        then; how many.

        One ``update_many`` with an aggregation-pipeline update (MongoDB 4.2+) per
        ``rules.IDS_PER_READ`` ids (an ``$in`` on ``_id`` is compared id by id on the local
        server: difference 20); ``created_at: None`` matches a missing field on MongoDB and
        SecantusDB alike.
        """
        dated = 0
        for chunk in _chunks(cart_ids):
            dated += self.collection.update_many(
                {"_id": {"$in": chunk}, "status": "active", "created_at": None},
                [{"$set": {"created_at": "$last_modified"}}],
            ).modified_count
        return dated

    def expire_past_max_age(self, cart_id, cart=None, max_age=None):
        """Expire the active cart ``cart_id`` if it was started more than ``max_age`` seconds ago
        (default ``settings.CART_MAX_AGE``), returning its stock; True when this call expired it.

        ``cart``: the cart as just read (a ``Cart`` or a raw document), to
        spare the read. A cart without ``created_at`` counts from its
        ``last_modified`` (``started``). Not past its age: 1 read (none with
        ``cart``); past it: a run limited to that cart (at most 6 round trips),
        which takes it only while it is active and still too old.
        """
        if not isinstance(cart_id, str) or not cart_id:
            return False
        max_age = settings.CART_MAX_AGE if max_age is None else max_age
        if cart is None:
            cart = self.collection.find_one({"_id": cart_id, "status": "active"},
                                            {"created_at": 1, "last_modified": 1})
        elif not isinstance(cart, dict):
            cart = {"status": cart.status, "created_at": cart.created_at, "last_modified": cart.last_modified}
        if cart is None or cart.get("status", "active") != "active":
            return False
        oldest = clock.now() - datetime.timedelta(seconds=max_age)
        if started(cart) >= oldest:
            return False
        # Idle since before ``oldest`` (a cart without created_at), or created before it.
        return bool(self._expire_run(oldest, cart_ids=[cart_id], born_before=oldest)[1])

    def expire_cart(self, cart_id):
        """Expire the cart ``cart_id`` now (for staff), returning its stock. True when this call
        expired it (it was active); a pending cart is left to ``reconcile_payments``: its payment
        may be taken. A run limited to that cart (at most 6 round trips)."""
        return bool(self._expire_run(None, cart_ids=[cart_id])[1])

    def _expire_run(self, threshold, *, cart_ids=None, born_before=None, adopt=False, progress=None):
        """One run (see the class docstring) over the carts idle since before ``threshold``
        (an aware datetime, or None: any age, unless ``born_before`` is given), and the
        active carts created before ``born_before`` (an aware datetime, or None), among
        ``cart_ids`` (None: every cart).

        ``adopt``: also finish the runs left unfinished (``expire`` only).
        Returns ``({'expired': n, 'returned': n}, marked)`` (``marked``: the
        carts this run's own write expired).
        """
        crashed = _runs().unfinished() if adopt else []
        run = {"_id": secrets.token_hex(8), "stamp": clock.now(), "threshold": threshold, "cart_ids": cart_ids,
               "born_before": born_before}
        _runs().start(run)
        marked = self._mark(run)
        # Our own write has expired every live cart older than our threshold, so a crashed run
        # with an older threshold (a longer timeout) has no carts left to mark; one with a newer
        # one, or limited to some carts, is marked again on its own terms (cheap: indexed).
        for other in crashed:
            self._mark(other)
        runs = [run, *crashed]
        report = self._finish_expiring(runs) if progress is None else self._finish_expiring(runs, progress=progress)
        return report, marked

    def _mark(self, run):
        """Make the carts of ``run`` (its document) ``expired``, tagged with it; how many (one
        write, two with ``born_before``, three over every cart).

        Taken: carts in ``TAKEN_STATUSES`` idle since before ``run['threshold']``
        (any age when None and there is no ``born_before``), and active carts
        created before ``run['born_before']`` (when set: a second write; over
        every cart, ``date_undated`` runs between the two, a third write),
        among ``run['cart_ids']`` when set. A cart becomes
        ``expired`` in its one write (the second write no longer matches what
        the first expired); the status and ``last_modified`` it gets
        are what ``_finish_expiring`` reads it back by.
        """
        born_before = run.get("born_before")
        ids = {} if run.get("cart_ids") is None else {"_id": {"$in": list(run["cart_ids"])}}
        update = {"$set": {"status": "expired", "expiry_run": run["_id"], "last_modified": run["stamp"]}}
        marked = 0
        if run.get("threshold") is not None or born_before is None:
            # One round trip, one update_many per status: SecantusDB 0.7.0b3 plans
            # ``status: {$in: [...]}`` as a scan of every cart, fresh ones included (local-server
            # difference 17); an equality and the range read only the idle carts' index entries.
            idle = {} if run.get("threshold") is None else {"last_modified": {"$lt": run["threshold"]}}
            marked += self.collection.bulk_write(
                [UpdateMany({"status": status, **idle, **ids}, update) for status in TAKEN_STATUSES],
                ordered=False).modified_count
        if born_before is not None:
            if run.get("cart_ids") is None and run.get("threshold") is not None:
                # The carts idle before the threshold are expired by now: the carts left to
                # judge by their age were touched since. Dated only now, after the idle carts
                # were taken: an undated idle cart is written once (expired), not twice.
                live = self.touched_since(run["threshold"])
                self.date_undated([c["_id"] for c in live if c.get("created_at") is None])
                candidates = [c["_id"] for c in live if started(c) < clock.aware(born_before)]
            else:
                candidates = None if run.get("cart_ids") is None else list(run["cart_ids"])
            if candidates is None:  # no threshold and no ids: every active cart (a scan)
                marked += self.collection.update_many(past_max_age_filter(born_before), update).modified_count
            for chunk in _chunks(candidates or []):
                marked += self.collection.update_many(
                    past_max_age_filter(born_before, {"_id": {"$in": chunk}}), update).modified_count
        return marked

    def _carts_of(self, runs):
        """Stream the ``{_id, items.sku}`` of the carts the ``runs`` (documents) expired: one read each."""
        for run in runs:
            yield from self.collection.find(
                {"status": "expired", "last_modified": run["stamp"], "expiry_run": run["_id"]},
                {"items.sku": 1}, batch_size=rules.BATCH_SIZE,
            )

    def _finish_expiring(self, runs, *, progress=None):
        """Return the stock of the carts the ``runs`` (documents) expired, then forget the runs.

        The carts are streamed (one read per run) and grouped by SKU,
        ``EXPIRY_CHUNK`` carts at a time (bounded memory); each chunk's
        reservations go back with one write per SKU
        (``Inventory.returns.return_reservations``); then one delete forgets
        the runs. ``progress(n)``, when given, is called after each chunk with
        its number of carts. Returns ``{'expired': n, 'returned': n}``.
        """
        expired = returned = 0
        by_sku, carts = {}, 0
        for cart in self._carts_of(runs):
            # Only the ids are kept, grouped by SKU: not the carts' documents.
            for line in cart.get("items", []):
                by_sku.setdefault(line["sku"], set()).add(cart["_id"])
            carts += 1
            if carts == EXPIRY_CHUNK:
                returned += _returns().return_reservations(by_sku)
                expired += carts
                if progress is not None:
                    progress(carts)
                by_sku, carts = {}, 0
        if carts:
            returned += _returns().return_reservations(by_sku)
            expired += carts
            if progress is not None:
                progress(carts)
        _runs().finish([run["_id"] for run in runs])
        return {"expired": expired, "returned": returned}
