"""The rollups' grouping, in the process: events -> hourly buckets, a level's buckets -> the next level's.

``RollupManager.roll_level`` streams the events (or the level below) of one
window of periods with a plain ``find`` and groups them here; the buckets go
back with bulk upserts. Each event and each bucket is examined once per run
and each bucket written once. The figures are those of the aggregation
pipelines this replaced (``analytics/pipelines.py`` keeps their shared
expressions): per key (the store, ``sku:<SKU>``, ``category:<id>`` for each
category the product is listed in and each of their ancestors, once per
sale) and period, the sums of ``MEASURES`` and ``mean = total / count``.

Why not ``$group`` + ``$merge`` on the server: on the local SecantusDB server
(docs/local-server-differences.md: local-server differences 19 and 22)
the pipeline examined each event twice and ``$lookup``-ed products and
categories per group, and ``$merge`` wrote a bucket in about 3 ms (36 s for
the 2,590 Chinook events); a streamed find and bulk upserts cost each server
one pass and one write per bucket. Pure functions: no database access here.

``stats.hourly`` holds one document per key and UTC day (``day_documents``:
``{_id: "<k>|<day>Z", k, d: the day, kind, ref, hours: [{h: 0..23, *MEASURES,
mean}, ...]}``, only the hours with events, in order), MongoDB's
"pre-aggregated reports" shape: on SecantusDB a year of a busy shop's
1.1 million (key, hour) buckets cost about 200 µs each to insert with their
index entries and about 60 µs each to read back; as about 140,000 (key, day)
documents they cost about an eighth of that. The other levels keep one document per
key and period (``bucket_documents``); ``source_measures`` reads either.
"""

import datetime
from operator import add, itemgetter

from .periods import period_end, period_start
from .pipelines import MEASURES, ORDER_REF_PREFIX

#: The kinds of key a bucket has (``keys_by_sku``): the rollups read a window of a level kind by
#: kind on the ``kind_period`` index (``RollupManager._window``).
KINDS = ("store", "sku", "category")
#: Fields of an event the hourly level reads.
EVENT_FIELDS = {"_id": 0, "type": 1, "sku": 1, "qty": 1, "amount": 1, "discount": 1, "ts": 1, "ref": 1}
#: Fields of a bucket a level reads from the level below.
BUCKET_FIELDS = {"_id": 0, "k": 1, "d": 1, "kind": 1, "ref": 1, "hours": 1, **{m: 1 for m in MEASURES}}
_NUMBER = (int, float)
_VIEWS, _CARTS = MEASURES.index("views"), MEASURES.index("carts")


def _number(value):
    return value if isinstance(value, _NUMBER) and not isinstance(value, bool) else 0


def event_measures(event):
    """The measures (a list in ``MEASURES`` order) one event adds to its buckets."""
    kind = event.get("type")
    if kind == "sale":
        ref = event.get("ref")
        live = ref is None or (isinstance(ref, str) and ref.startswith(ORDER_REF_PREFIX))
        return [_number(event.get("amount")), 1, _number(event.get("qty")), 0, 0, 1 if live else 0, 0,
                _number(event.get("discount"))]
    if kind == "refund":
        return [0, 0, 0, 0, 0, 0, _number(event.get("amount")), 0]
    return [0, 0, 0, 1 if kind == "view" else 0, 1 if kind == "cart" else 0, 0, 0, 0]


def keys_by_sku(products, categories):
    """``{sku: [(k, kind, ref), ...]}``: the bucket keys a sale of each SKU counts in, store first.

    ``products``: ``{sku, categories: [category id, ...], variants: [{sku}, ...]}`` documents;
    ``categories``: ``{_id, ancestors: [{_id}, ...]}`` documents. A product
    counts in each category it is listed in that exists, and in each of
    their ancestors, once; so does each of its variants' SKUs (its own key ``sku:<variant SKU>``).
    """
    ancestors = {c["_id"]: [a["_id"] for a in (c.get("ancestors") or [])] for c in categories}
    keys = {}
    for product in products:
        found = [c for c in (product.get("categories") or []) if c in ancestors]
        ids = list(dict.fromkeys(found + [a for c in found for a in ancestors[c]]))
        for sku in [product.get("sku")] + [v.get("sku") for v in product.get("variants") or []]:
            if not isinstance(sku, str) or sku in keys:
                continue
            keys[sku] = [("store", "store", None), (f"sku:{sku}", "sku", sku)] + [
                (f"category:{c}", "category", c) for c in ids]
    return keys


def _add(buckets, key, d, kind, ref, measures):
    bucket = buckets.get((key, d))
    if bucket is None:
        buckets[(key, d)] = [kind, ref, *measures]
    else:
        for i, value in enumerate(measures, 2):
            bucket[i] += value


def hourly_buckets(events, keys_of):
    """Group ``events`` (documents with ``EVENT_FIELDS``) into hourly buckets.

    ``keys_of``: ``keys_by_sku``'s map (a SKU not in it counts for the store
    and itself). Returns ``{(k, hour start): [kind, ref, *measures]}``.
    """
    # Per event only the hour cut from ``ts`` as stored (naive UTC from pymongo) and a count added
    # in place (a sale: its measures); the aware hour once per hour (profiled, issue 41: building
    # the measures and the aware hour of every event was most of the process's time per event).
    tallies = {}
    for event in events:
        key = (event.get("sku"), event["ts"].replace(minute=0, second=0, microsecond=0))
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = [0] * len(MEASURES)
        kind = event.get("type")
        if kind == "view":
            tally[_VIEWS] += 1
        elif kind == "cart":
            tally[_CARTS] += 1
        elif kind in ("sale", "refund"):  # their measures come from the event's amount
            for i, value in enumerate(event_measures(event)):
                tally[i] += value
    aware_hours, buckets = {}, {}
    for (sku, hour), measures in tallies.items():
        start = aware_hours.get(hour)
        if start is None:
            start = aware_hours[hour] = period_start("hour", hour)
        keys = keys_of.get(sku)
        if keys is None:
            # A refund of money (sku "") counts for the store only.
            keys = [("store", "store", None)] + ([(f"sku:{sku}", "sku", sku)] if isinstance(sku, str) and sku else [])
        for key, kind, ref in keys:
            bucket = buckets.get((key, start))
            if bucket is None:
                buckets[(key, start)] = [kind, ref, *measures]
            else:
                bucket[2:] = map(add, bucket[2:], measures)
    return buckets


def source_measures(source):
    """The measures (a list in ``MEASURES`` order) of one stored document of a level: its own, or,
    for a ``stats.hourly`` day document, the sums of its ``hours``."""
    hours = source.get("hours")
    if hours is None:
        return [source.get(m, 0) for m in MEASURES]
    return [sum(hour.get(m, 0) for hour in hours) for m in MEASURES]


def level_buckets(unit, sources):
    """Group the stored documents ``sources`` (with ``BUCKET_FIELDS``) of the level below into
    ``unit`` periods (a day or longer: a ``stats.hourly`` document holds a whole day).

    Returns ``{(k, period start): [kind, ref, *measures]}``.
    """
    buckets = {}
    for source in sources:
        _add(buckets, source["k"], period_start(unit, source["d"]), source.get("kind"), source.get("ref"),
             source_measures(source))
    return buckets


def complete_periods(unit, day_ranges):
    """The starts (aware UTC) of the ``unit`` periods lying whole inside one of ``day_ranges``
    (``(start, end)`` pairs of whole days, aware UTC), as a set."""
    starts = set()
    for start, end in day_ranges:
        period = period_start(unit, start)
        if period < start:
            period = period_end(unit, period)
        while period_end(unit, period) <= end:
            starts.add(period)
            period = period_end(unit, period)
    return starts


def incomplete_ranges(unit, start, end, complete):
    """The ``(start, end)`` runs of ``unit`` periods from ``start`` to ``end`` (period starts, aware
    UTC) whose starts are not in ``complete``, in order."""
    runs, period = [], start
    while period < end:
        following = period_end(unit, period)
        if period not in complete:
            if runs and runs[-1][1] == period:
                runs[-1][1] = following
            else:
                runs.append([period, following])
        period = following
    return [tuple(run) for run in runs]


def carry_days(carried, unit, complete, day_buckets):
    """Add the daily ``day_buckets`` (``{(k, day start): [kind, ref, *measures]}``) of the periods in
    ``complete`` into ``carried`` (``{period start: {k: [kind, ref, *measures]}}``, changed in
    place), each to the ``unit`` period holding its day; days of other periods are left out.
    A period's buckets are whole once every day of it has been added."""
    starts = {}
    for (key, day), (kind, ref, *measures) in day_buckets.items():
        start = starts.get(day)
        if start is None:
            start = starts[day] = period_start(unit, day)
        if start not in complete:
            continue
        period = carried.get(start)
        if period is None:
            period = carried[start] = {}
        bucket = period.get(key)
        if bucket is None:
            period[key] = [kind, ref, *measures]
        else:
            bucket[2:] = map(add, bucket[2:], measures)


def bucket_documents(buckets):
    """The stored form of ``buckets``: ``{_id: "<k>|<ISO start>Z", k, d, kind, ref, *MEASURES, mean}``."""
    for (key, d), (kind, ref, *measures) in buckets.items():
        document = {"_id": f"{key}|{d:%Y-%m-%dT%H:%M:%SZ}", "k": key, "d": d, "kind": kind, "ref": ref,
                    **dict(zip(MEASURES, measures))}
        document["mean"] = document["total"] / document["count"] if document["count"] else 0
        yield document


def day_documents(buckets, sums=None):
    """The stored form of hourly ``buckets`` (``hourly_buckets``' map): one document per key and
    UTC day, ``{_id: "<k>|<ISO day>Z", k, d: the day (aware UTC), kind, ref, hours: [{h: hour of
    the day 0..23, *MEASURES, mean}, ...]}``, the hours in order. Returns a list.

    ``sums``, when given (a dict), is filled with the documents' daily buckets, ``{(k, day
    start): [kind, ref, *measures]}`` summed from their hours as they are built: what
    ``level_buckets("day", documents)`` returns, without a second pass over the hours.
    """
    days, day_of = {}, {}
    for (key, hour), (kind, ref, *measures) in sorted(buckets.items(), key=itemgetter(0)):
        day = day_of.get(hour)
        if day is None:
            day = day_of[hour] = period_start("day", hour)
        document = days.get((key, day))
        if document is None:
            document = days[(key, day)] = {"_id": f"{key}|{day:%Y-%m-%dT%H:%M:%SZ}", "k": key, "d": day,
                                           "kind": kind, "ref": ref, "hours": []}
            if sums is not None:
                sums[(key, day)] = [kind, ref, *measures]
        elif sums is not None:
            bucket = sums[(key, day)]
            bucket[2:] = map(add, bucket[2:], measures)
        entry = {"h": hour.hour, **dict(zip(MEASURES, measures))}
        entry["mean"] = entry["total"] / entry["count"] if entry["count"] else 0
        document["hours"].append(entry)
    return list(days.values())


def hour_rows(document):
    """The hourly buckets of one stored ``stats.hourly`` day document: ``[{d: hour start (aware
    UTC), *MEASURES, mean}, ...]``, in order."""
    day = period_start("day", document["d"])
    return [{"d": day + datetime.timedelta(hours=hour["h"]), "mean": hour.get("mean", 0),
             **{m: hour.get(m, 0) for m in MEASURES}} for hour in document.get("hours") or []]


def windows(unit, ranges, size):
    """Split ``ranges`` (``(start, end)`` pairs of whole ``unit`` periods, aware UTC) into
    ``(start, end)`` windows of at most ``size`` periods each, in order."""
    for start, end in ranges:
        while start < end:
            stop = start
            for _ in range(size):
                stop = period_end(unit, stop)
                if stop >= end:
                    break
            stop = min(stop, end)
            yield start, stop
            start = stop


def hours_between(first, last):
    """Every hour start (aware UTC) from the hour of ``first`` to the hour of ``last``, as a set."""
    hour, last = period_start("hour", first), period_start("hour", last)
    hours = set()
    while hour <= last:
        hours.add(hour)
        hour += datetime.timedelta(hours=1)
    return hours
