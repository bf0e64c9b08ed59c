"""``RollupManager`` (``RollupProgress.objects``): the "Hierarchical Aggregation" use case's rollups.

Rolls the events up into ``stats.hourly`` -> ``stats.daily`` ->
``stats.weekly`` and ``stats.daily`` -> ``stats.monthly`` -> ``stats.yearly``
("Hierarchical Aggregation" use case used map-reduce, deprecated since MongoDB 5.0): each level's
periods a window at a time, one streamed ``find`` grouped in the process
(``analytics/bucketing.py``) and bulk upserts of the buckets; the levels and
periods are in ``analytics/periods.py``. The daily buckets are written in the
hourly level's pass, from the day documents it has just built (``same_pass``):
four passes, not five. ``stats.hourly`` stores one document
per key and day holding its hours (``bucketing.day_documents``). Reads the
buckets back for the dashboard.
"""

import datetime
from itertools import islice

from bson import ObjectId
from django.db import models
from pymongo import ASCENDING, DESCENDING, ReplaceOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

from catalog.products.variants import line_title
from core import clock
from core.mongo import only_duplicate_keys
from core.mongo.collections import MongoCollectionMixin

from ..bucketing import (
    BUCKET_FIELDS,
    EVENT_FIELDS,
    KINDS,
    bucket_documents,
    carry_days,
    complete_periods,
    day_documents,
    hour_rows,
    hourly_buckets,
    hours_between,
    incomplete_ranges,
    keys_by_sku,
    level_buckets,
    windows,
)
from ..periods import LEVELS, LEVELS_BY_NAME, period_end, period_start, ranges_covering, widen
from ..pipelines import MEASURES, each, period_expression, period_filter


PROGRESS_ID = "events"
#: Periods of each level recomputed per window (one read, a few bulk writes): a week of hours
#: (whole days: ``stats.hourly`` stores a day per document), a fortnight of days (~30,000
#: hourly buckets of a busy shop read), ...; bounds the memory of a run.
WINDOW = {"hour": 24 * 7, "day": 14, "week": 8, "month": 3, "year": 1}
#: Buckets per bulk write.
WRITE_BATCH = 1000
#: What a stored bucket is compared on (``k`` and ``d`` are in its ``_id``).
STORED_FIELDS = {"_id": 1, "kind": 1, "ref": 1, "mean": 1, "hours": 1, **{m: 1 for m in MEASURES}}
#: Documents per round trip of the streamed reads (a ``getMore`` per batch after the first).
READ_BATCH = 5000
#: At most this many buckets (keys times periods) of the levels above the daily one are summed in
#: memory during the hourly pass (``carried_levels``); past it every period is read back. A year of
#: the Chinook catalog's 378 keys is about 25,000 (weeks, months and the year).
CARRY_LIMIT = 250_000


def level_windows(level, ranges):
    """The ``(start, end)`` windows ``roll_level`` recomputes for ``level``'s periods in ``ranges``.

    Whole stored documents: for ``stats.hourly`` (a day per document) the
    ranges of hours are widened to the days holding them and a window is
    ``WINDOW["hour"] // 24`` days (at least 1); other levels ``WINDOW[unit]``
    periods.
    """
    if level.span == level.unit:
        return list(windows(level.unit, ranges, WINDOW[level.unit]))
    # Only the hourly level spans more than its unit (a day of hours per document).
    return list(windows(level.span, widen(level.span, ranges), max(1, WINDOW[level.unit] // 24)))


def batched(iterable, size):
    """Lists of at most ``size`` items from ``iterable``."""
    iterator = iter(iterable)
    while batch := list(islice(iterator, size)):
        yield batch


def same_pass(level):
    """The level whose documents ``roll_level(level)`` also writes from the documents it has just
    built, or None: the level of ``level``'s span (a ``stats.hourly`` document holds a key's day,
    so ``stats.daily``'s bucket of that key and day is the sum of its hours) when that level is
    rolled from ``level``."""
    return next((other for other in LEVELS
                 if other.source == level.name and other.unit == level.span != level.unit), None)


def written_by(level):
    """The level whose pass writes ``level``'s documents (``same_pass``), or None: rolled on its own."""
    return next((other for other in LEVELS if same_pass(other) == level), None)


def carried_levels():
    """The levels whose buckets the hourly pass can sum in memory from the daily buckets it builds:
    those rolled from the level it writes in the same pass (``stats.daily``: weekly, monthly), and
    those rolled from one of them (yearly from monthly: a year's buckets are the sums of its days)."""
    names = {level.name for level in LEVELS if written_by(level) is not None}
    carried = []
    for level in LEVELS:
        if level.source in names and written_by(level) is None:
            names.add(level.name)
            carried.append(level)
    return carried


#: A range claimed longer ago than this belongs to a run that crashed: the dashboard, its
#: button and ``rollup_stats`` take it over (an incremental run takes seconds).
TAKEOVER_AFTER_SECONDS = 300


class RollupManager(MongoCollectionMixin, models.Manager):
    """The "Hierarchical Aggregation" use case's incremental hierarchical rollups, with the aggregation pipeline.

    A run takes the events *recorded* since the last run (up to ``until``),
    finds the hours they fall in (by ``ts``), and recomputes those hourly
    buckets from all the events of those hours; then the days, ISO weeks
    (Monday start), months and years holding those hours, each from the
    level below. Every bucket is *replaced* (``ReplaceOne`` upserts on
    ``_id``), never incremented, so writing a bucket twice
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

    def rollup(self, until=None, takeover_after=None, progress=None):
        """Roll every event recorded up to ``until`` (aware UTC; default now) into the stats.

        A pending range (a run that crashed, or one still running) is redone
        first. ``takeover_after``: None takes a pending range over at once
        (redoing it is harmless; for a caller that knows no other run is
        going); a number of seconds (``TAKEOVER_AFTER_SECONDS`` for the
        dashboard, its button and ``rollup_stats``) takes over only a range
        claimed longer ago than that, so that a run in progress is not doubled.
        ``progress(n, total)``, when given, is called with ``total`` (windows of
        the range about to be rolled, ``n`` 0) and then after each window
        (``n`` 1, ``total`` None).

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
            report = {**self._roll(pending["from"], pending["until"], run, progress),
                      "claimed_elsewhere": False, "resumed": True}
            state["done_until"] = pending["until"]
        if state["done_until"] is None or until > state["done_until"]:
            run = ObjectId()
            claim = {"from": state["done_until"], "until": until, "run": run, "claimed": clock.now()}
            if not self._claim({"pending": None, "done_until": state["done_until"]}, {"pending": claim},
                               upsert=True):
                return {**report, "claimed_elsewhere": True}
            report = {**self._roll(state["done_until"], until, run, progress),
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

    def _roll(self, after, until, run, progress):
        """``_roll_range``, passing ``progress`` only when there is one (tests replace ``_roll_range``)."""
        if progress is None:
            return self._roll_range(after, until, run)
        return self._roll_range(after, until, run, progress=progress)

    def _roll_range(self, after, until, run, progress=None):
        """Recompute every level for the events recorded in ``(after, until]``, then mark it done.

        Marking it done is conditional on the claim ``run`` still holding
        (another run may have taken the range over: it marks it done itself).
        ``progress``: see ``rollup``.
        """
        hours = self.touched_hours(after, until)
        periods = {"hourly": hours}
        for level in LEVELS[1:]:
            periods[level.name] = {period_start(level.unit, h) for h in hours}
        ranges = {level.name: ranges_covering(level.unit, periods[level.name]) for level in LEVELS}
        rolled = [level for level in LEVELS if written_by(level) is None]
        if progress is not None:
            progress(0, sum(len(level_windows(level, ranges[level.name])) for level in rolled))
        carry = {}  # filled by the hourly pass, read by the levels above (``roll_level``)
        for level in rolled:
            if periods[level.name]:
                if progress is None:
                    self.roll_level(level, ranges[level.name], carry=carry)
                else:
                    self.roll_level(level, ranges[level.name], progress=lambda n: progress(n, None), carry=carry)
        self.collection.update_one(
            {"_id": PROGRESS_ID, "pending.run": run},
            {"$set": {"done_until": until, "updated": clock.now()}, "$unset": {"pending": ""}},
        )
        return {"from": after, "until": until, "hours": len(hours),
                "periods": {name: len(p) for name, p in periods.items()}}

    def touched_hours(self, after, until):
        """The hours (aware UTC starts) of the events recorded in ``(after, until]``.

        One aggregate over those events (the ``recorded`` index). A first run
        (``after`` None) covers every event: rather than grouping them all, it
        reads the first and the last ``ts`` and the first ``recorded`` in one
        ``$group`` (nothing when no event was recorded by ``until``) and takes
        every hour between (an hour without events gets no bucket; events
        recorded after ``until`` in those hours are counted now and again by the
        next run, as in any run).

        One ``$group`` rather than a ``find`` sorted on ``ts`` with a limit for
        each bound: the local server reads, decodes and sorts every document a
        sort with a limit matches (local-server difference 6), and a
        ``find_one`` every document its filter matches, so the three reads
        this replaced passed over every event three times (about 90 µs of the
        server's CPU an event, against 30 to 45 for the one ``$group``).
        """
        events = self.get_collection("events")
        if after is None:
            bounds = next(events.aggregate([{"$group": {
                "_id": None, "first": {"$min": "$ts"}, "last": {"$max": "$ts"},
                "recorded": {"$min": "$recorded"}}}]), None)
            if (bounds is None or bounds["recorded"] is None or bounds["first"] is None
                    or clock.aware(bounds["recorded"]) > until):
                return set()
            return hours_between(bounds["first"], bounds["last"])
        cursor = events.aggregate([
            {"$match": {"recorded": {"$gt": after, "$lte": until}}},
            {"$group": {"_id": period_expression("hour", "$ts")}},
        ])
        return {clock.aware(d["_id"]) for d in cursor}

    def roll_level(self, level, ranges, progress=None, carry=None):
        """Recompute (replace) the buckets of ``level`` for the periods in ``ranges``.

        A window of periods at a time (``level_windows``; bounded memory):
        one streamed ``find`` of the events (hourly) or, per kind of key, of the level below (``_window``),
        grouped in the process (``analytics.bucketing``; ``READ_BATCH``
        documents per round trip), and the window's documents written in bulk
        (``_replace_buckets``: one read of the stored ones, then new ones
        inserted and changed ones replaced, ``WRITE_BATCH`` per round trip).
        The hourly level recomputes whole days (a ``stats.hourly`` document
        holds a key's day of hours): every event of the days holding the
        hours in ``ranges``.
        The hourly level first reads the products' categories and the
        categories' ancestors (2 reads), and writes the daily level's
        documents of the same days in the same pass (``same_pass``: a day's
        bucket is the sum of the day document's hours), so a run reads no
        ``stats.hourly`` document back and does not roll the daily level
        on its own (``written_by``).
        ``carry`` (a run's dict, ``_roll_range``): the hourly pass fills it with the
        buckets of the weekly, monthly and yearly periods whose days it
        recomputes whole (``carried_levels``, ``bucketing.carry_days``), summed
        from the daily buckets it builds; those levels then take those periods
        from it and read back from the level below only the periods the pass
        covered in part (a first run's first and last week, month and year).
        ``progress(n)``, when given, is called after each window (``n`` = 1).
        Returns the number of documents written (unchanged ones are not).
        """
        keys_of = self._keys_by_sku() if level.source is None else None
        above = same_pass(level)
        if keys_of is not None and above is not None and carry is not None:
            self._start_carry(carry, widen("day", ranges), keys_of)
        carried = carry.get(level.name) if carry else None
        written = 0
        for start, end in level_windows(level, ranges):
            if keys_of is not None:
                events = self.get_collection("events").find({"ts": {"$gte": start, "$lt": end}}, EVENT_FIELDS,
                                                            batch_size=READ_BATCH)
                days = {}
                documents = day_documents(hourly_buckets(events, keys_of), days if above is not None else None)
            elif carried is None:
                sources = self._window(LEVELS_BY_NAME[level.source].collection, start, end, BUCKET_FIELDS)
                documents = bucket_documents(level_buckets(level.unit, sources))
            else:
                documents = bucket_documents(self._carried_buckets(level, carried, start, end))
            written += self._replace_buckets(level.collection, documents, start, end)
            if above is not None:
                # The window is whole periods of ``above`` (whole days): its buckets are the sums
                # of the documents just built (``days``, summed by ``day_documents``), as
                # ``roll_level(above)`` would read them back.
                for unit, complete, periods in (carry or {}).values():
                    carry_days(periods, unit, complete, days)
                written += self._replace_buckets(above.collection, bucket_documents(days), start, end)
            if progress is not None:
                progress(1)
        return written

    def _start_carry(self, carry, days, keys_of):
        """Fill ``carry`` with ``{level name: (unit, complete period starts, {})}`` for each of
        ``carried_levels`` with periods lying whole in ``days`` (the day ranges the hourly pass
        recomputes), unless their buckets would pass ``CARRY_LIMIT``."""
        keys = len({key for keys in keys_of.values() for key, _, _ in keys}) + 1  # + a refund's store key
        plan = {level.name: (level.unit, complete_periods(level.unit, days), {}) for level in carried_levels()}
        plan = {name: entry for name, entry in plan.items() if entry[1]}
        if keys * sum(len(complete) for _, complete, _ in plan.values()) <= CARRY_LIMIT:
            carry.update(plan)

    def _carried_buckets(self, level, carried, start, end):
        """The buckets of ``level``'s window ``[start, end)``: the periods ``carried`` holds whole
        (``(unit, complete starts, {period start: {k: bucket}})``, taken out of it), the others
        grouped from the level below read back (``_window``, one read per kind and run of them)."""
        unit, complete, periods = carried
        buckets = {}
        source = LEVELS_BY_NAME[level.source].collection
        for first, last in incomplete_ranges(unit, start, end, complete):
            buckets.update(level_buckets(unit, self._window(source, first, last, BUCKET_FIELDS)))
        period = start
        while period < end:
            for key, bucket in periods.pop(period, {}).items():
                buckets[(key, period)] = bucket
            period = period_end(unit, period)
        return buckets

    def _keys_by_sku(self):
        """``bucketing.keys_by_sku`` of every product (2 reads: products, categories)."""
        products = self.get_collection("products").find({}, {"_id": 0, "sku": 1, "categories": 1, "variants.sku": 1})
        categories = self.get_collection("categories").find({}, {"_id": 1, "ancestors._id": 1})
        return keys_by_sku(products, list(categories))

    def _window(self, collection, start, end, fields):
        """Stream the documents of ``collection`` (a level's) with ``start <= d < end``, ``fields``
        projected: one ``find`` per kind of key (``bucketing.KINDS``), each an equality and a
        range on the ``kind_period`` index, ``READ_BATCH`` documents per round trip.

        Kind by kind rather than one ``find`` on ``d`` alone: the levels keep no index on
        ``d`` alone, because on the local server each index of a collection costs every
        document inserted (local-server difference 23: 240 against 300 to 340 µs of the
        server's CPU a bucket inserted with two secondary indexes instead of three).
        """
        target = self.get_collection(collection)
        for kind in KINDS:
            yield from target.find({"kind": kind, "d": {"$gte": start, "$lt": end}}, fields, batch_size=READ_BATCH)

    def _replace_buckets(self, collection, documents, start, end):
        """Replace the window ``[start, end)``'s bucket ``documents`` in ``collection``; how many were
        written.

        One read per kind of key of the buckets stored for the window (``_window``);
        the new ones are inserted (``insert_many``, ``WRITE_BATCH`` per round
        trip), the changed ones replaced (``ReplaceOne`` upserts in bulk), the
        unchanged ones left alone. Inserts first: on the local SecantusDB
        (docs/local-server-differences.md: local-server difference 19)
        server a batch of inserts commits once, a bulk of updates once per
        update (about 1 ms each with ``--sync-on-commit``); on MongoDB both
        are bulk writes. A bucket another run inserted meanwhile (a takeover
        of a range thought crashed) is replaced instead.
        """
        target = self.get_collection(collection)
        stored = {d.pop("_id"): d for d in self._window(collection, start, end, STORED_FIELDS)}
        fresh, changed = [], []
        for document in documents:
            before = stored.get(document["_id"])
            if before is None:
                fresh.append(document)
            elif any(before.get(field) != document.get(field) for field in STORED_FIELDS if field != "_id"):
                changed.append(document)
        for batch in batched(fresh, WRITE_BATCH):
            try:
                target.insert_many(batch, ordered=False)
            except BulkWriteError as error:
                if not only_duplicate_keys(error):
                    raise
                taken = {e["index"] for e in error.details["writeErrors"]}
                changed.extend(batch[i] for i in sorted(taken))
        for batch in batched(changed, WRITE_BATCH):
            target.bulk_write([ReplaceOne({"_id": d["_id"]}, d, upsert=True) for d in batch], ordered=False)
        return len(fresh) + len(changed)

    # -- reads for the dashboard ------------------------------------------

    def buckets(self, level, key="store", start=None, end=None):
        """The buckets of ``key`` at ``level`` with ``start <= d < end``, oldest first.

        ``key``: ``"store"``, ``"sku:<SKU>"`` or ``"category:<id>"``. Each
        bucket: ``{d (aware UTC), total (cents), count, mean, units, views, carts}``.
        ``"hourly"`` reads the day documents holding ``[start, end)`` and
        returns their hours in it. Raises KeyError for an unknown level.
        """
        found = LEVELS_BY_NAME[level]
        if found.span != found.unit:
            first = None if start is None else period_start(found.span, start)
            cursor = self.get_collection(found.collection).find(
                {"k": key, **period_filter(first, end)}, {"_id": 0, "d": 1, "hours": 1}).sort("d", ASCENDING)
            return [row for document in cursor for row in hour_rows(document)
                    if (start is None or row["d"] >= start) and (end is None or row["d"] < end)]
        query = {"k": key, **period_filter(start, end)}
        cursor = self.get_collection(found.collection).find(
            query, {"_id": 0, "d": 1, "mean": 1, **{m: 1 for m in MEASURES}}
        ).sort("d", ASCENDING)
        return [{**d, "d": clock.aware(d["d"])} for d in cursor]

    def totals(self, level, start=None, end=None, key="store"):
        """The sums of the measures of ``key`` over the ``level`` buckets in ``[start, end)``.

        Returns ``{total, count, units, views, carts, live_count, refunds, discounts, mean, net}``
        (zeros when empty); ``total`` is what the sales were paid (after discounts, with tax and
        shipping), ``discounts`` what was taken off them, ``net`` is ``total - refunds`` (revenue
        less what was refunded in the period).
        """
        rows = self.buckets(level, key, start, end)
        sums = {m: sum(r.get(m, 0) for r in rows) for m in MEASURES}
        sums["mean"] = sums["total"] / sums["count"] if sums["count"] else 0
        sums["net"] = sums["total"] - sums["refunds"]
        return sums

    def top(self, kind, level, start=None, end=None, limit=10):
        """The best sellers of ``kind`` (``"sku"`` or ``"category"``) over ``[start, end)`` at ``level``.

        One aggregate: the buckets summed per key, ordered by revenue then
        units, with the product's title or the category's name and slug
        joined in (``$lookup``). Returns ``[{ref, name, slug, total, units,
        count}, ...]``. Raises ValueError for another kind, or for ``"hourly"``
        (its documents hold a day of hours: sum the ``"daily"`` level instead).
        """
        if kind not in ("sku", "category"):
            raise ValueError(f"Unknown kind {kind!r}.")
        if LEVELS_BY_NAME[level].span != LEVELS_BY_NAME[level].unit:
            raise ValueError(f"The best sellers are summed from the daily level or above, not {level!r}.")
        match = {"kind": kind, **period_filter(start, end)}
        if kind == "sku":
            # ``skus``: a variant's SKU finds its product too (catalog/products/variants.py).
            join = {"from": "products", "localField": "_id", "foreignField": "skus", "as": "named"}
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
                          "slug": {"$ifNull": [{"$arrayElemAt": [each("$named", "slug"), 0]}, None]},
                          "options": {"$ifNull": [{"$arrayElemAt": [each("$named", "variants"), 0]}, None]}}},
        ])
        rows = [{"ref": d["_id"], "name": d.get("name") or str(d["_id"]), "slug": d.get("slug"),
                 "total": d["total"], "units": d["units"], "count": d["count"],
                 "options": d.get("options")} for d in cursor]
        for row in rows:  # a variant: its product's title and its options ("... — Vinyl")
            options = row.pop("options", None)
            variant = next((v for v in options or [] if v.get("sku") == row["ref"]), None)
            if variant is not None:
                row["name"] = line_title(row["name"], variant.get("options"))
        rows.sort(key=lambda r: (-r["total"], -r["units"], str(r["ref"])))
        return rows
