"""The analytics' MongoDB operations (seed 001 "Hierarchical Aggregation", seed 004's operators).

* ``EventManager`` (``Event.objects``) writes the raw ``events``: product
  views, add-to-cart, sales (one per sold line), and imports historical sales.
* ``RollupManager`` (``RollupProgress.objects``) rolls the events up into
  ``stats.hourly`` -> ``stats.daily`` -> ``stats.weekly`` and
  ``stats.daily`` -> ``stats.monthly`` -> ``stats.yearly`` with the
  aggregation pipeline (seed 001 used map-reduce, deprecated since MongoDB
  5.0), and reads the buckets back for the dashboard.
* ``ReportManager`` (``Event.reports``) holds the reports written with seed
  004's operators ($cond, $ifNull, $let, the date operators, $cmp).

Views, commands and admin classes call these methods; none of them builds a
pymongo query itself.
"""

import datetime
import re
from dataclasses import dataclass

from django.db import models
from bson import ObjectId
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from shop import clock
from shop.mongo.collections import MongoCollectionMixin

UTC = datetime.UTC
DAY_MS = 24 * 60 * 60 * 1000


# -- events ------------------------------------------------------------

#: The ``ref`` prefix of the sales written by the shop's checkout (``record_order``);
#: any other ``ref`` marks a sale imported by ``import_sales`` (``load_sales``).
ORDER_REF_PREFIX = "order:"

class EventManager(MongoCollectionMixin, models.Manager):
    """Writes seed 001's raw ``events``: ``{type, sku, qty, amount, userid, ts, recorded[, ref]}``."""

    def _document(self, type, sku, qty=1, amount=0, userid="", ts=None, ref=None):
        now = clock.now()
        document = {
            "type": type,
            "sku": str(sku),
            "qty": int(qty),
            "amount": int(amount),
            "userid": str(userid or ""),
            "ts": clock.aware(ts) or now,
            "recorded": now,
        }
        if ref is not None:
            document["ref"] = str(ref)
        return document

    def record_view(self, sku, userid=""):
        """Record that a shopper viewed product ``sku`` now. One write; returns None.

        ``userid``: the customer's e-mail, ``"session:<key>"`` or ``""``.
        """
        self.collection.insert_one(self._document(self.model.VIEW, sku, userid=userid))

    def record_add_to_cart(self, sku, qty=1, userid=""):
        """Record that a shopper put ``qty`` units of ``sku`` in a cart now. One write.

        For the cart's code (inventory): call it once per successful add.
        Raises ValueError for a quantity below 1 (nothing is written).
        """
        if int(qty) < 1:
            raise ValueError("An add-to-cart event needs a quantity of at least 1.")
        self.collection.insert_one(self._document(self.model.CART, sku, qty=qty, userid=userid))

    def record_order(self, cart_id, lines, userid="", ts=None):
        """Record one sale event per line of a completed order; idempotent per cart.

        ``lines``: ``[{"sku": str, "qty": int, "price": int cents per unit}, ...]``
        (the ``order_placed`` signal's). Each line's ``amount`` is
        ``price * qty`` cents; its ``ref`` is ``order:<cart_id>:<line number>``,
        so a signal delivered twice (same cart, shopper and ``ts``) writes
        nothing the second time (one upsert per line). ``ts``: when the order
        completed (aware UTC; default now). Returns the number of sale events
        written.
        """
        written = 0
        for number, line in enumerate(lines, start=1):
            qty, price = int(line["qty"]), int(line["price"])
            document = self._document(
                self.model.SALE, line["sku"], qty=qty, amount=price * qty, userid=userid, ts=ts,
                ref=f"{ORDER_REF_PREFIX}{cart_id}:{number}",
            )
            # The filter holds the shard key of events, (userid, ts): an upsert on a
            # sharded collection needs it.
            result = self.collection.update_one(
                {"userid": document["userid"], "ts": document["ts"], "ref": document["ref"]},
                {"$setOnInsert": document}, upsert=True,
            )
            written += 1 if result.upserted_id is not None else 0
        return written

    def import_sales(self, sales, ref_prefix):
        """Import historical sale events, each once: returns ``(written, already_there)``.

        ``sales``: dicts ``{ref, sku, qty, amount (cents), userid, ts (aware UTC)}``
        whose ``ref`` starts with ``ref_prefix`` (e.g. ``"chinook:"``). The refs
        already stored under that prefix are read in one query and only the
        missing sales are inserted (one ``insert_many``), so a second import
        of the same sales writes nothing. Raises ValueError for a sale whose
        ref lacks the prefix (nothing is written).
        """
        sales = list(sales)
        for sale in sales:
            if not str(sale["ref"]).startswith(ref_prefix):
                raise ValueError(f"Sale ref {sale['ref']!r} does not start with {ref_prefix!r}.")
        pattern = "^" + re.escape(ref_prefix)
        stored = {d["ref"] for d in self.collection.find({"ref": {"$regex": pattern}}, {"ref": 1})}
        missing = [
            self._document(self.model.SALE, s["sku"], qty=s["qty"], amount=s["amount"],
                           userid=s.get("userid", ""), ts=s["ts"], ref=s["ref"])
            for s in sales if s["ref"] not in stored
        ]
        if missing:
            self.collection.insert_many(missing, ordered=False)
        return len(missing), len(sales) - len(missing)

    def insert_generated(self, documents):
        """Insert ready-made event documents (the benchmark's generator); returns how many.

        Each document needs ``type, sku, qty, amount, userid, ts``;
        ``recorded`` defaults to now.
        """
        documents = list(documents)
        now = clock.now()
        for document in documents:
            document.setdefault("recorded", now)
        if documents:
            self.collection.insert_many(documents, ordered=False)
        return len(documents)


# -- periods -----------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One rollup level: its name, the level it is rolled up from (None: the events), its period."""

    name: str
    source: str | None
    unit: str

    @property
    def collection(self):
        return f"stats.{self.name}"


#: Seed 001's hierarchy, in the order a run writes it.
LEVELS = [
    Level("hourly", None, "hour"),
    Level("daily", "hourly", "day"),
    Level("weekly", "daily", "week"),
    Level("monthly", "daily", "month"),
    Level("yearly", "monthly", "year"),
]
LEVELS_BY_NAME = {level.name: level for level in LEVELS}


def period_start(unit, moment):
    """The start (aware UTC) of the ``unit`` period holding ``moment``.

    Units: ``hour``, ``day``, ``week`` (ISO weeks: Monday 00:00 UTC, so a
    week may span two months or two years; the seed's weekly map used an
    undefined ``dt``), ``month``, ``year`` (January 1st: the seed's yearly
    map built February 1st, JavaScript months starting at 0).
    """
    moment = clock.aware(moment)
    if unit == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "day":
        return day
    if unit == "week":
        return day - datetime.timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "year":
        return day.replace(month=1, day=1)
    raise ValueError(f"Unknown period unit {unit!r}.")


def period_end(unit, start):
    """The start of the period after the ``unit`` period starting at ``start``."""
    if unit == "hour":
        return start + datetime.timedelta(hours=1)
    if unit == "day":
        return start + datetime.timedelta(days=1)
    if unit == "week":
        return start + datetime.timedelta(days=7)
    if unit == "month":
        return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    if unit == "year":
        return start.replace(year=start.year + 1)
    raise ValueError(f"Unknown period unit {unit!r}.")


def ranges_covering(unit, starts, max_ranges=16):
    """Few ``(start, end)`` ranges covering the ``unit`` periods starting at ``starts``.

    Adjacent periods are joined; past ``max_ranges`` ranges, the smallest
    gaps are closed too (recomputing a bucket that did not change is
    harmless: it gives the same figures), so a match stays small.
    """
    ranges = []
    for start in sorted(set(starts)):
        end = period_end(unit, start)
        if ranges and ranges[-1][1] >= start:
            ranges[-1][1] = max(ranges[-1][1], end)
        else:
            ranges.append([start, end])
    if len(ranges) > max_ranges:
        gaps = sorted(range(len(ranges) - 1), key=lambda i: ranges[i + 1][0] - ranges[i][1])
        keep = set(gaps[len(gaps) - (max_ranges - 1):])  # the largest gaps stay open
        joined = [ranges[0]]
        for i in range(1, len(ranges)):
            if i - 1 in keep:
                joined.append(ranges[i])
            else:
                joined[-1][1] = ranges[i][1]
        ranges = joined
    return [tuple(r) for r in ranges]


def _each(array, field):
    """``array``'s elements' ``field``, as an expression: ``"$array.field"`` written with ``$map``.

    SecantusDB (the local server) evaluates a field path through an array of
    subdocuments in an expression to missing; MongoDB gives the same list either way.
    """
    return {"$map": {"input": array, "in": f"$$this.{field}"}}


def _in_ranges(field, ranges):
    clauses = [{field: {"$gte": start, "$lt": end}} for start, end in ranges]
    return clauses[0] if len(clauses) == 1 else {"$or": clauses}


def _period_expression(unit, field):
    """The aggregation expression of the ``unit`` period start of the date ``field``.

    Weeks use ``$dayOfWeek`` arithmetic (1 = Sunday ... 7 = Saturday: back
    ``(dayOfWeek + 5) % 7`` days to Monday) rather than ``$dateTrunc``'s
    ``startOfWeek``, so that the pipeline needs only the most common operators.
    """
    if unit == "week":
        day = {"$dateTrunc": {"date": field, "unit": "day"}}
        back = {"$mod": [{"$add": [{"$dayOfWeek": field}, 5]}, 7]}
        return {"$subtract": [day, {"$multiply": [back, DAY_MS]}]}
    return {"$dateTrunc": {"date": field, "unit": unit}}


#: ``live_count``: the sale lines the shop recorded itself (an order line, or an event
#: without ``ref``), as opposed to history imported by ``import_sales`` (``load_sales``),
#: which has no views or add-to-cart events behind it; the funnel counts only these.
_MEASURES = ("total", "count", "units", "views", "carts", "live_count")
_IS_SALE = {"$eq": ["$type", "sale"]}
# An anchored $regexMatch (MongoDB 4.2) on the event's ref.
_IS_LIVE = {"$regexMatch": {"input": {"$ifNull": ["$ref", ORDER_REF_PREFIX]},
                            "regex": "^" + re.escape(ORDER_REF_PREFIX)}}


def _bucket_stages(collection):
    """The stages that shape grouped ``{_id: {k, d}, kind, ref, measures}`` into buckets and
    replace them in ``collection`` (``$merge`` on the bucket's ``_id``)."""
    return [
        {"$project": {
            "_id": {"$concat": [
                "$_id.k", "|", {"$dateToString": {"format": "%Y-%m-%dT%H:%M:%SZ", "date": "$_id.d"}},
            ]},
            "k": "$_id.k",
            "d": "$_id.d",
            "kind": 1,
            "ref": 1,
            **{m: 1 for m in _MEASURES},
            "mean": {"$cond": [{"$gt": ["$count", 0]}, {"$divide": ["$total", "$count"]}, 0]},
        }},
        {"$merge": {"into": collection, "on": "_id", "whenMatched": "replace",
                    "whenNotMatched": "insert"}},
    ]


def hourly_pipeline(ranges, collection="stats.hourly"):
    """events -> ``collection``: recompute every hourly bucket of the hours in ``ranges``.

    Per (SKU, hour) first, then each group fans out to its keys: the store
    (``store``), the SKU (``sku:<SKU>``), and each category the product is
    listed in plus every ancestor of those (``category:<id>``, from the
    categories' stored ``ancestors``; a category is counted once per sale
    even when the product is listed under it twice).
    """
    found_categories = {"$map": {"input": "$categories", "as": "c", "in": "$$c._id"}}
    their_ancestors = {"$reduce": {
        "input": "$categories", "initialValue": [],
        "in": {"$concatArrays": ["$$value", {"$map": {
            "input": {"$ifNull": ["$$this.ancestors", []]}, "as": "a", "in": "$$a._id"}}]},
    }}
    return [
        {"$match": _in_ranges("ts", ranges)},
        {"$group": {
            "_id": {"sku": "$sku", "d": _period_expression("hour", "$ts")},
            "total": {"$sum": {"$cond": [_IS_SALE, "$amount", 0]}},
            "count": {"$sum": {"$cond": [_IS_SALE, 1, 0]}},
            "units": {"$sum": {"$cond": [_IS_SALE, "$qty", 0]}},
            "views": {"$sum": {"$cond": [{"$eq": ["$type", "view"]}, 1, 0]}},
            "carts": {"$sum": {"$cond": [{"$eq": ["$type", "cart"]}, 1, 0]}},
            "live_count": {"$sum": {"$cond": [{"$and": [_IS_SALE, _IS_LIVE]}, 1, 0]}},
        }},
        {"$lookup": {"from": "products", "localField": "_id.sku", "foreignField": "sku",
                     "as": "product"}},
        {"$addFields": {"category_ids": {
            "$ifNull": [{"$arrayElemAt": [_each("$product", "categories"), 0]}, []]}}},
        {"$lookup": {"from": "categories", "localField": "category_ids", "foreignField": "_id",
                     "as": "categories"}},
        {"$project": {
            "_id": 0,
            "d": "$_id.d",
            **{m: 1 for m in _MEASURES},
            "keys": {"$concatArrays": [
                [{"k": "store", "kind": "store", "ref": None}],
                [{"k": {"$concat": ["sku:", "$_id.sku"]}, "kind": "sku", "ref": "$_id.sku"}],
                {"$map": {
                    "input": {"$setUnion": [found_categories, their_ancestors]}, "as": "c",
                    "in": {"k": {"$concat": ["category:", {"$toString": "$$c"}]},
                           "kind": "category", "ref": "$$c"},
                }},
            ]},
        }},
        {"$unwind": "$keys"},
        {"$group": {
            "_id": {"k": "$keys.k", "d": "$d"},
            "kind": {"$first": "$keys.kind"},
            "ref": {"$first": "$keys.ref"},
            **{m: {"$sum": f"${m}"} for m in _MEASURES},
        }},
        *_bucket_stages(collection),
    ]


def level_pipeline(level, ranges):
    """``level.source`` -> ``level``: recompute every bucket of the periods in ``ranges``
    by summing the source level's buckets of each key (mean = total / count)."""
    return [
        {"$match": _in_ranges("d", ranges)},
        {"$group": {
            "_id": {"k": "$k", "d": _period_expression(level.unit, "$d")},
            "kind": {"$first": "$kind"},
            "ref": {"$first": "$ref"},
            **{m: {"$sum": f"${m}"} for m in _MEASURES},
        }},
        *_bucket_stages(level.collection),
    ]


# -- rollups -----------------------------------------------------------

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
            {"$group": {"_id": _period_expression("hour", "$ts")}},
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
        query = {"k": key, **_period(start, end)}
        cursor = self.get_collection(LEVELS_BY_NAME[level].collection).find(
            query, {"_id": 0, "d": 1, "mean": 1, **{m: 1 for m in _MEASURES}}
        ).sort("d", ASCENDING)
        return [{**d, "d": clock.aware(d["d"])} for d in cursor]

    def totals(self, level, start=None, end=None, key="store"):
        """The sums of the measures of ``key`` over the ``level`` buckets in ``[start, end)``.

        Returns ``{total, count, units, views, carts, mean}`` (zeros when empty).
        """
        rows = self.buckets(level, key, start, end)
        sums = {m: sum(r.get(m, 0) for r in rows) for m in _MEASURES}
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
        match = {"kind": kind, **_period(start, end)}
        if kind == "sku":
            join = {"from": "products", "localField": "_id", "foreignField": "sku", "as": "named"}
            name = _each("$named", "title")
        else:
            join = {"from": "categories", "localField": "_id", "foreignField": "_id", "as": "named"}
            name = _each("$named", "name")
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
                          "slug": {"$ifNull": [{"$arrayElemAt": [_each("$named", "slug"), 0]}, None]}}},
        ])
        rows = [{"ref": d["_id"], "name": d.get("name") or str(d["_id"]), "slug": d.get("slug"),
                 "total": d["total"], "units": d["units"], "count": d["count"]} for d in cursor]
        rows.sort(key=lambda r: (-r["total"], -r["units"], str(r["ref"])))
        return rows


# -- reports (seed 004's operators) --------------------------------------


def compare(a, b):
    """``{"$cmp": [a, b]}``: -1, 0 or 1 (seed 004)."""
    return {"$cmp": [a, b]}


#: Price bands of the price-band report: (upper bound in cents, exclusive, or None; label).
PRICE_BANDS = [(500, "under $5"), (1000, "$5 to $9.99"), (2000, "$10 to $19.99"), (None, "$20 and over")]
WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


class ReportManager(MongoCollectionMixin, models.Manager):
    """Reports with seed 004's operators, over the products and the rollups (not the raw events)."""

    def price_bands(self):
        """Products per retail price band (nested ``$cond``), and how many sell below list price
        (``$cmp`` of retail and list). Returns ``[{band, products, discounted}, ...]`` in band
        order, every band present."""
        band = len(PRICE_BANDS) - 1
        for number in range(len(PRICE_BANDS) - 2, -1, -1):
            bound = PRICE_BANDS[number][0]
            band = {"$cond": [{"$lt": ["$pricing.retail", bound]}, number, band]}
        cursor = self.get_collection("products").aggregate([
            {"$project": {"band": band,
                          "below_list": compare("$pricing.retail", "$pricing.list")}},
            {"$group": {"_id": "$band", "products": {"$sum": 1},
                        "discounted": {"$sum": {"$cond": [{"$eq": ["$below_list", -1]}, 1, 0]}}}},
        ])
        found = {d["_id"]: d for d in cursor}
        return [
            {"band": label, "products": found.get(n, {}).get("products", 0),
             "discounted": found.get(n, {}).get("discounted", 0)}
            for n, (_bound, label) in enumerate(PRICE_BANDS)
        ]

    def missing_descriptions(self, limit=50):
        """Products with no description (missing, null or empty, via ``$ifNull``), by SKU.

        Returns ``(count, [{sku, title}, ...])``: the first ``limit`` of them.
        """
        cursor = self.get_collection("products").aggregate([
            {"$project": {"_id": 0, "sku": 1, "title": 1,
                          "description": {"$ifNull": ["$description", ""]}}},
            {"$match": {"description": ""}},
            {"$sort": {"sku": ASCENDING}},
            {"$facet": {"count": [{"$count": "n"}], "first": [{"$limit": int(limit)}]}},
        ])
        result = next(iter(cursor), {"count": [], "first": []})
        count = result["count"][0]["n"] if result["count"] else 0
        return count, [{"sku": d["sku"], "title": d.get("title", "")} for d in result["first"]]

    def totals_with_tax(self, start, end, tax_percent):
        """Monthly store revenue in ``[start, end)`` with tax added (``$let``), from ``stats.monthly``.

        ``start``, ``end``: aware UTC month starts, or None for an open bound.
        ``tax_percent``: an int 0..100. Returns ``[{d, net, tax, gross}, ...]``
        in cents (tax rounded to the cent), oldest first. Raises ValueError
        for a rate outside 0..100.
        """
        tax_percent = int(tax_percent)
        if not 0 <= tax_percent <= 100:
            raise ValueError("The tax rate must be between 0 and 100 percent.")
        tax = {"$round": [{"$divide": [{"$multiply": ["$total", tax_percent]}, 100]}, 0]}
        cursor = self.get_collection("stats.monthly").aggregate([
            {"$match": {"k": "store", **_period(start, end)}},
            {"$project": {"_id": 0, "d": 1, "net": "$total", "tax": tax,
                          "gross": {"$let": {"vars": {"net": "$total", "tax": tax},
                                             "in": {"$add": ["$$net", "$$tax"]}}}}},
            {"$sort": {"d": ASCENDING}},
        ])
        return [{"d": clock.aware(r["d"]), "net": int(r["net"]), "tax": int(r["tax"]),
                 "gross": int(r["gross"])} for r in cursor]

    def sales_by_weekday(self, start=None, end=None):
        """Store revenue and sales per weekday over ``[start, end)`` from ``stats.daily``
        (``$dayOfWeek``). Returns 7 rows ``{weekday, total, count}``, Monday first."""
        cursor = self.get_collection("stats.daily").aggregate([
            {"$match": {"k": "store", **_period(start, end)}},
            {"$group": {"_id": {"$dayOfWeek": "$d"}, "total": {"$sum": "$total"},
                        "count": {"$sum": "$count"}}},
        ])
        found = {d["_id"]: d for d in cursor}
        order = [2, 3, 4, 5, 6, 7, 1]  # $dayOfWeek: 1 = Sunday
        return [{"weekday": WEEKDAYS[n - 1], "total": found.get(n, {}).get("total", 0),
                 "count": found.get(n, {}).get("count", 0)} for n in order]


def _period(start, end):
    """The filter ``{"d": {"$gte": start, "$lt": end}}`` for the bounds given (None: open)."""
    bounds = {}
    if start is not None:
        bounds["$gte"] = start
    if end is not None:
        bounds["$lt"] = end
    return {"d": bounds} if bounds else {}
