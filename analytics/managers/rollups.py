"""``RollupManager`` (``RollupProgress.objects``): seed 001's hierarchical rollups.

Rolls the events up into ``stats.hourly`` -> ``stats.daily`` ->
``stats.weekly`` and ``stats.daily`` -> ``stats.monthly`` -> ``stats.yearly``
with the aggregation pipeline (seed 001 used map-reduce, deprecated since
MongoDB 5.0; the pipelines are in ``analytics/pipelines.py``, the levels and
periods in ``analytics/periods.py``), and reads the buckets back for the
dashboard.
"""

import datetime

from bson import ObjectId
from django.db import models
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from shop import clock
from shop.mongo.collections import MongoCollectionMixin

from ..periods import LEVELS, LEVELS_BY_NAME, period_start, ranges_covering
from ..pipelines import MEASURES, each, hourly_pipeline, level_pipeline, period_expression, period_filter


PROGRESS_ID = "events"
#: A range claimed longer ago than this belongs to a run that crashed: the dashboard, its
#: button and ``rollup_stats`` take it over (an incremental run takes seconds).
TAKEOVER_AFTER_SECONDS = 300


class RollupManager(MongoCollectionMixin, models.Manager):
    """Seed 001's incremental hierarchical rollups, with the aggregation pipeline.

    A run takes the events *recorded* since the last run (up to ``until``),
    finds the hours they fall in (by ``ts``), and recomputes those hourly
    buckets from all the events of those hours; then the days, ISO weeks
    (Monday start), months and years holding those hours, each from the
    level below. Every bucket is *replaced* (``$merge`` on ``_id``,
    ``whenMatched: replace``), never incremented, so writing a bucket twice
    gives the same figures: a re-run, or a run after a crash at any point,
    never counts an event twice and never loses one.

    Progress lives in one document of ``stats.progress``: ``pending`` =
    ``{from, until, run, claimed}`` is written before the first bucket,
    ``done_until`` advances (and ``pending`` goes) only after the last
    level's write; a run that finds ``pending`` redoes that range first.
    Each range is *claimed* by a conditional write on that document
    (``pending`` absent and ``done_until`` as read, or, to take a pending
    range over, its ``run`` as read), so two runs started at once roll a
    range once: the one whose claim is refused writes no bucket.
    """

    def progress(self):
        """``{"done_until": aware datetime or None, "pending": {"from", "until", "run", "claimed"}
        or None}`` (``run``: the claiming run's ObjectId, ``claimed``: when, aware UTC; both None
        for a range pending since before runs were claimed)."""
        document = self.collection.find_one({"_id": PROGRESS_ID}) or {}
        pending = document.get("pending")
        if pending:
            pending = {"from": clock.aware(pending.get("from")), "until": clock.aware(pending["until"]),
                       "run": pending.get("run"), "claimed": clock.aware(pending.get("claimed"))}
        return {"done_until": clock.aware(document.get("done_until")), "pending": pending}

    def rollup(self, until=None, takeover_after=None):
        """Roll every event recorded up to ``until`` (aware UTC; default now) into the stats.

        A pending range (a run that crashed, or one still running) is redone
        first. ``takeover_after``: None takes a pending range over at once
        (redoing it is harmless; for a caller that knows no other run is
        going); a number of seconds (``TAKEOVER_AFTER_SECONDS`` for the
        dashboard, its button and ``rollup_stats``) takes over only a range
        claimed longer ago than that, so that a run in progress is not doubled.

        Returns ``{"claimed_elsewhere": bool, "resumed": bool, "from", "until",
        "hours": int, "periods": {level name: int}}`` for the last range
        rolled (``hours`` 0 when nothing new was recorded).
        ``claimed_elsewhere`` True: another run holds the range (its claim
        came first, or is younger than ``takeover_after``); this call wrote
        no bucket. Raises ValueError for a naive ``until``.
        """
        if until is not None and until.tzinfo is None:
            raise ValueError("until must be an aware UTC datetime.")
        until = clock.aware(until) or clock.now()
        state = self.progress()
        pending = state["pending"]
        report = {"claimed_elsewhere": False, "resumed": pending is not None,
                  "from": state["done_until"], "until": state["done_until"], "hours": 0, "periods": {}}
        if pending is not None:
            young = (takeover_after is not None and pending["claimed"] is not None
                     and clock.now() - pending["claimed"] < datetime.timedelta(seconds=takeover_after))
            run = ObjectId()
            if young or not self._claim({"pending.until": pending["until"], "pending.run": pending["run"]},
                                        {"pending.run": run, "pending.claimed": clock.now()}):
                return {**report, "claimed_elsewhere": True}
            report = {**self._roll_range(pending["from"], pending["until"], run),
                      "claimed_elsewhere": False, "resumed": True}
            state["done_until"] = pending["until"]
        if state["done_until"] is None or until > state["done_until"]:
            run = ObjectId()
            claim = {"from": state["done_until"], "until": until, "run": run, "claimed": clock.now()}
            if not self._claim({"pending": None, "done_until": state["done_until"]}, {"pending": claim},
                               upsert=True):
                return {**report, "claimed_elsewhere": True}
            report = {**self._roll_range(state["done_until"], until, run),
                      "claimed_elsewhere": False, "resumed": report["resumed"]}
        return report

    def _claim(self, condition, fields, upsert=False):
        """Set ``fields`` on the progress document if it matches ``condition``: one conditional write.

        Returns True when this run got the claim, False when another run's
        came first (no match, or, with ``upsert``, the duplicate ``_id`` of an
        insert attempted because the document no longer matched).
        """
        try:
            result = self.collection.update_one({"_id": PROGRESS_ID, **condition}, {"$set": fields},
                                                upsert=upsert)
        except DuplicateKeyError:
            return False
        return bool(result.matched_count or result.upserted_id is not None)

    def _roll_range(self, after, until, run):
        """Recompute every level for the events recorded in ``(after, until]``, then mark it done.

        Marking it done is conditional on the claim ``run`` still holding
        (another run may have taken the range over: it marks it done itself).
        """
        hours = self.touched_hours(after, until)
        periods = {"hourly": hours}
        for level in LEVELS[1:]:
            periods[level.name] = {period_start(level.unit, h) for h in hours}
        for level in LEVELS:
            if periods[level.name]:
                self.roll_level(level, ranges_covering(level.unit, periods[level.name]))
        self.collection.update_one(
            {"_id": PROGRESS_ID, "pending.run": run},
            {"$set": {"done_until": until, "updated": clock.now()}, "$unset": {"pending": ""}},
        )
        return {"from": after, "until": until, "hours": len(hours),
                "periods": {name: len(p) for name, p in periods.items()}}

    def touched_hours(self, after, until):
        """The hours (aware UTC starts) of the events recorded in ``(after, until]`` (one aggregate)."""
        recorded = {"$lte": until}
        if after is not None:
            recorded["$gt"] = after
        cursor = self.get_collection("events").aggregate([
            {"$match": {"recorded": recorded}},
            {"$group": {"_id": period_expression("hour", "$ts")}},
        ])
        return {clock.aware(d["_id"]) for d in cursor}

    def roll_level(self, level, ranges):
        """Recompute (replace) the buckets of ``level`` for the periods in ``ranges``: one aggregate."""
        if level.source is None:
            pipeline = hourly_pipeline(ranges, level.collection)
            source = "events"
        else:
            pipeline = level_pipeline(level, ranges)
            source = LEVELS_BY_NAME[level.source].collection
        list(self.get_collection(source).aggregate(pipeline))

    # -- reads for the dashboard ------------------------------------------

    def buckets(self, level, key="store", start=None, end=None):
        """The buckets of ``key`` at ``level`` with ``start <= d < end``, oldest first.

        ``key``: ``"store"``, ``"sku:<SKU>"`` or ``"category:<id>"``. Each
        bucket: ``{d (aware UTC), total (cents), count, mean, units, views, carts}``.
        Raises KeyError for an unknown level.
        """
        query = {"k": key, **period_filter(start, end)}
        cursor = self.get_collection(LEVELS_BY_NAME[level].collection).find(
            query, {"_id": 0, "d": 1, "mean": 1, **{m: 1 for m in MEASURES}}
        ).sort("d", ASCENDING)
        return [{**d, "d": clock.aware(d["d"])} for d in cursor]

    def totals(self, level, start=None, end=None, key="store"):
        """The sums of the measures of ``key`` over the ``level`` buckets in ``[start, end)``.

        Returns ``{total, count, units, views, carts, mean}`` (zeros when empty).
        """
        rows = self.buckets(level, key, start, end)
        sums = {m: sum(r.get(m, 0) for r in rows) for m in MEASURES}
        sums["mean"] = sums["total"] / sums["count"] if sums["count"] else 0
        return sums

    def top(self, kind, level, start=None, end=None, limit=10):
        """The best sellers of ``kind`` (``"sku"`` or ``"category"``) over ``[start, end)`` at ``level``.

        One aggregate: the buckets summed per key, ordered by revenue then
        units, with the product's title or the category's name and slug
        joined in (``$lookup``). Returns ``[{ref, name, slug, total, units,
        count}, ...]``. Raises ValueError for another kind.
        """
        if kind not in ("sku", "category"):
            raise ValueError(f"Unknown kind {kind!r}.")
        match = {"kind": kind, **period_filter(start, end)}
        if kind == "sku":
            join = {"from": "products", "localField": "_id", "foreignField": "sku", "as": "named"}
            name = each("$named", "title")
        else:
            join = {"from": "categories", "localField": "_id", "foreignField": "_id", "as": "named"}
            name = each("$named", "name")
        cursor = self.get_collection(LEVELS_BY_NAME[level].collection).aggregate([
            {"$match": match},
            {"$group": {"_id": "$ref", "total": {"$sum": "$total"}, "units": {"$sum": "$units"},
                        "count": {"$sum": "$count"}}},
            {"$match": {"count": {"$gt": 0}}},
            {"$sort": {"total": DESCENDING, "units": DESCENDING, "_id": ASCENDING}},
            {"$limit": int(limit)},
            {"$lookup": join},
            {"$project": {"total": 1, "units": 1, "count": 1,
                          "name": {"$ifNull": [{"$arrayElemAt": [name, 0]}, None]},
                          "slug": {"$ifNull": [{"$arrayElemAt": [each("$named", "slug"), 0]}, None]}}},
        ])
        rows = [{"ref": d["_id"], "name": d.get("name") or str(d["_id"]), "slug": d.get("slug"),
                 "total": d["total"], "units": d["units"], "count": d["count"]} for d in cursor]
        rows.sort(key=lambda r: (-r["total"], -r["units"], str(r["ref"])))
        return rows
