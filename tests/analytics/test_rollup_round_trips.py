"""Rollups at scale: each event read once per run, each bucket written once, round trips that grow
with the windows of periods, not with the events; the windows and the grouping themselves."""

import datetime

from analytics import bucketing
from analytics.managers import rollups
from analytics.models import RollupProgress
from analytics.periods import LEVELS
from core.mongo import get_collection
from core.mongo.counter import count_operations

from tests.analytics.test_rollups import (SALES, add_sales, add_funnel_events, assert_rolled_up_from_nothing_the_same,  # noqa: F401 - fixture
                                         at, figures, shop, snapshot)


def spread(count, start, hours):
    """``count`` sales of A, B, C spread over ``hours`` hours from ``start``."""
    return [(start + datetime.timedelta(minutes=(n * 60 * hours) // count), "ABC"[n % 3], 1, 100)
            for n in range(count)]


def stats_documents():
    return sum(get_collection(level.collection).count_documents({}) for level in LEVELS)


def full_run(sales):
    add_sales(sales)
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    return ops


def test_a_full_run_reads_the_events_once_and_writes_each_bucket_once(shop):  # noqa: F811
    ops = full_run(spread(300, at(2021, 3, 1), 20))
    events = [op for collection, op in ops.operations if collection == "events"]
    # The first ts, the last and the first recorded in one $group (a find sorted with a limit would
    # read every event on the local server: local-server difference 6); then one find for the one
    # window of hours.
    assert events == ["aggregate", "find"], ops.operations
    stats_writes = sum(n for (collection, op), n in zip(ops.operations, ops.statements)
                       if collection in {level.collection for level in LEVELS} and op in ("insert", "update"))
    assert stats_writes == stats_documents()


def test_round_trips_do_not_grow_with_the_events(shop):  # noqa: F811
    small = full_run(spread(30, at(2021, 3, 1), 20))
    for level in LEVELS:
        get_collection(level.collection).delete_many({})
    get_collection("stats.progress").delete_many({})
    get_collection("events").delete_many({})
    large = full_run(spread(600, at(2021, 3, 1), 20))
    assert small.operations == large.operations
    assert figures("daily", "store", at(2021, 3, 1)) == (60000, 600, 600)


def test_a_rerun_of_a_range_writes_only_the_buckets_that_changed(shop):  # noqa: F811
    add_sales(spread(60, at(2021, 3, 1), 20))
    RollupProgress.objects.rollup()
    add_sales([(at(2021, 3, 1, 5, 30), "A", 1, 100)], prefix="one-more")
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    # The hour's store, sku:A and its 3 categories (Metal, Rock, Music), at each of the 5 levels.
    assert ops.write_statements - 2 == 5 * 5, ops  # minus the claim and the done write
    assert figures("hourly", "sku:A", at(2021, 3, 1, 5)) == (200, 2, 2)


def test_round_trips_grow_with_the_windows(shop, monkeypatch):  # noqa: F811
    """A year of hours is read a week at a time: one events find per window of WINDOW hours."""
    add_sales(spread(60, at(2021, 1, 1), 24 * 60))  # 60 days
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    finds = sum(1 for collection, op in ops.operations if (collection, op) == ("events", "find"))
    assert finds == len(list(bucketing.windows("hour", [(at(2021, 1, 1), at(2021, 3, 1))],
                                                     rollups.WINDOW["hour"])))
    assert figures("monthly", "store", at(2021, 1, 1)) == (3100, 31, 31)
    assert figures("monthly", "store", at(2021, 2, 1)) == (2800, 28, 28)
    assert figures("yearly", "store", at(2021, 1, 1)) == (6000, 60, 60)


def test_figures_do_not_depend_on_the_window_size(shop, monkeypatch):  # noqa: F811
    add_sales(SALES)
    RollupProgress.objects.rollup()
    wide = {level.name: sorted(get_collection(level.collection).find(), key=lambda d: d["_id"]) for level in LEVELS}
    for level in LEVELS:
        get_collection(level.collection).delete_many({})
    get_collection("stats.progress").delete_many({})
    monkeypatch.setattr(rollups, "WINDOW", {unit: 1 for unit in rollups.WINDOW})
    monkeypatch.setattr(rollups, "WRITE_BATCH", 3)
    RollupProgress.objects.rollup()
    narrow = {level.name: sorted(get_collection(level.collection).find(), key=lambda d: d["_id"]) for level in LEVELS}
    assert narrow == wide


def test_a_bucket_another_run_inserted_meanwhile_is_replaced(shop, monkeypatch):  # noqa: F811
    """A run taking over a range it thought crashed races the first run: an insert hits the
    other's bucket (duplicate _id) and replaces it instead."""
    from pymongo.collection import Collection

    real = Collection.insert_many
    fired = []

    def insert_many(self, documents, **kwargs):
        if self.name == "stats.daily" and not fired:
            fired.append(True)
            real(self, [{**documents[0], "total": -1}])  # the other run's, between our read and write
        return real(self, documents, **kwargs)

    add_sales(SALES)
    monkeypatch.setattr(Collection, "insert_many", insert_many)
    RollupProgress.objects.rollup()
    monkeypatch.undo()
    assert fired
    raced = sorted(get_collection("stats.daily").find(), key=lambda d: d["_id"])
    get_collection("stats.daily").delete_many({})
    RollupProgress.objects.roll_level(LEVELS[1], [(at(2020, 12, 31), at(2021, 4, 3))])
    assert sorted(get_collection("stats.daily").find(), key=lambda d: d["_id"]) == raced
    assert all(d["total"] >= 0 for d in raced)


def test_windows_split_ranges_at_period_boundaries():
    day = datetime.timedelta(days=1)
    ranges = [(at(2021, 1, 1), at(2021, 1, 4)), (at(2021, 2, 1), at(2021, 2, 2))]
    assert list(bucketing.windows("day", ranges, 2)) == [
        (at(2021, 1, 1), at(2021, 1, 3)), (at(2021, 1, 3), at(2021, 1, 4)), (at(2021, 2, 1), at(2021, 2, 1) + day)]
    assert list(bucketing.windows("month", [(at(2021, 1, 1), at(2022, 1, 1))], 5)) == [
        (at(2021, 1, 1), at(2021, 6, 1)), (at(2021, 6, 1), at(2021, 11, 1)), (at(2021, 11, 1), at(2022, 1, 1))]


def test_grouping_counts_a_sale_once_in_each_key():
    keys = bucketing.keys_by_sku(
        [{"sku": "A", "categories": ["metal", "rock", "gone"]}],
        [{"_id": "music", "ancestors": []}, {"_id": "rock", "ancestors": [{"_id": "music"}]},
         {"_id": "metal", "ancestors": [{"_id": "music"}, {"_id": "rock"}]}],
    )
    assert [k for k, _, _ in keys["A"]] == ["store", "sku:A", "category:metal", "category:rock", "category:music"]
    events = [{"type": "sale", "sku": "A", "qty": 2, "amount": 500, "discount": 60, "ts": at(2021, 1, 1, 10, 5),
               "ref": "order:x:0"},
              {"type": "sale", "sku": "A", "qty": 1, "amount": 300, "ts": at(2021, 1, 1, 10, 50), "ref": "chinook:1"},
              {"type": "view", "sku": "A", "qty": 1, "amount": 0, "ts": at(2021, 1, 1, 10, 7)},
              {"type": "sale", "sku": "Z", "qty": 1, "amount": 100, "ts": at(2021, 1, 1, 11)},
              {"type": "refund", "sku": "", "qty": 0, "amount": 40, "ts": at(2021, 1, 1, 11, 30), "ref": "refund:x:r"}]
    buckets = bucketing.hourly_buckets(events, keys)
    # kind, ref, total, count, units, views, carts, live_count, refunds, discounts
    assert buckets[("category:music", at(2021, 1, 1, 10))] == ["category", "music", 800, 2, 3, 1, 0, 1, 0, 60]
    # A refund counts for the store only, in refunds.
    assert buckets[("store", at(2021, 1, 1, 11))] == ["store", None, 100, 1, 1, 0, 0, 1, 40, 0]
    assert ("sku:Z", at(2021, 1, 1, 11)) in buckets and len(buckets) == 5 + 2


def test_hourly_documents_hold_a_key_s_day_of_hours(shop):  # noqa: F811
    """stats.hourly: one document per key and day (the pre-aggregated reports shape), its hours in
    order; the hourly buckets read back through the manager, cut to the range asked."""
    add_sales([(at(2021, 3, 1, 3, 10), "A", 1, 100), (at(2021, 3, 1, 3, 40), "A", 2, 400),
               (at(2021, 3, 1, 17, 5), "A", 1, 100), (at(2021, 3, 2, 0, 30), "A", 1, 100)])
    RollupProgress.objects.rollup()
    documents = list(get_collection("stats.hourly").find({"k": "sku:A"}).sort("d", 1))
    assert [d["_id"] for d in documents] == ["sku:A|2021-03-01T00:00:00Z", "sku:A|2021-03-02T00:00:00Z"]
    assert [(h["h"], h["total"], h["count"], h["units"]) for h in documents[0]["hours"]] == [
        (3, 500, 2, 3), (17, 100, 1, 1)]
    # store, sku:A and its 3 categories (Metal, Rock, Music), each on 2 days.
    assert get_collection("stats.hourly").count_documents({}) == 5 * 2
    rows = RollupProgress.objects.buckets("hourly", "sku:A", at(2021, 3, 1, 4), at(2021, 3, 2, 1))
    assert [(r["d"], r["total"], r["mean"]) for r in rows] == [
        (at(2021, 3, 1, 17), 100, 100), (at(2021, 3, 2, 0), 100, 100)]
    assert figures("daily", "sku:A", at(2021, 3, 1)) == (600, 3, 4)


def test_a_late_event_recomputes_the_whole_day_of_its_hour(shop):  # noqa: F811
    """A new event in one hour rewrites that key's day document from every event of the day: the
    day's other hours stay in it."""
    add_sales([(at(2021, 3, 1, 3, 10), "A", 1, 100), (at(2021, 3, 1, 17, 5), "A", 1, 100)])
    RollupProgress.objects.rollup()
    add_sales([(at(2021, 3, 1, 17, 50), "A", 1, 300)], prefix="late")
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    finds = [op for collection, op in ops.operations if collection == "events"]
    assert finds == ["aggregate", "find"]  # the hours touched, then the one day's events
    assert [(r["d"], r["total"], r["count"]) for r in RollupProgress.objects.buckets("hourly", "sku:A")] == [
        (at(2021, 3, 1, 3), 100, 1), (at(2021, 3, 1, 17), 400, 2)]
    assert figures("daily", "sku:A", at(2021, 3, 1)) == (500, 3, 3)


def test_the_best_sellers_are_not_summed_from_the_hourly_level(shop):  # noqa: F811
    import pytest

    with pytest.raises(ValueError):
        RollupProgress.objects.top("sku", "hourly")


def test_widen_joins_hour_ranges_into_whole_days():
    from analytics.periods import widen

    ranges = [(at(2021, 1, 1, 5), at(2021, 1, 1, 6)), (at(2021, 1, 1, 23), at(2021, 1, 2, 1)),
              (at(2021, 1, 5, 0), at(2021, 1, 6, 0))]
    assert widen("day", ranges) == [(at(2021, 1, 1), at(2021, 1, 3)), (at(2021, 1, 5), at(2021, 1, 6))]


def test_hourly_windows_are_whole_days(monkeypatch):
    hourly = LEVELS[0]
    assert rollups.level_windows(hourly, [(at(2021, 1, 1, 5), at(2021, 1, 20, 6))]) == [
        (at(2021, 1, 1), at(2021, 1, 8)), (at(2021, 1, 8), at(2021, 1, 15)), (at(2021, 1, 15), at(2021, 1, 21))]
    monkeypatch.setattr(rollups, "WINDOW", {**rollups.WINDOW, "hour": 1})
    assert len(rollups.level_windows(hourly, [(at(2021, 1, 1, 5), at(2021, 1, 3, 6))])) == 3


def test_the_daily_buckets_come_from_the_hourly_pass_not_a_read_back(shop):  # noqa: F811
    """A run writes stats.daily from the day documents it has just built: no stats.hourly
    document is read back, and the daily level rolled on its own from them finds nothing to change."""
    add_sales(SALES)
    add_funnel_events()
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    finds = {name: sum(1 for collection, op in ops.operations if (collection, op) == (name, "find"))
             for name in ("events", "stats.hourly")}
    # The events: one find per window (the bounds come from an aggregate); the day documents: only
    # each window's stored ones, compared before writing (none read as a source).
    assert finds["stats.hourly"] == len(bucketing.KINDS) * finds["events"] > 0
    daily = sorted(get_collection("stats.daily").find(), key=lambda d: d["_id"])
    assert daily
    assert RollupProgress.objects.roll_level(LEVELS[1], [(at(2020, 12, 1), at(2021, 5, 1))]) == 0
    assert sorted(get_collection("stats.daily").find(), key=lambda d: d["_id"]) == daily


def test_a_crash_between_the_hourly_and_the_daily_writes_is_redone(shop, monkeypatch):  # noqa: F811
    """The hourly pass writes a window's day documents, then its daily buckets: a crash between
    the two leaves the range pending, and the rerun gives the figures of a clean run."""
    import pytest

    add_sales(SALES)
    real = rollups.RollupManager._replace_buckets

    def crashing(self, collection, documents, start, end):
        if collection == "stats.daily":
            raise RuntimeError("killed between the hourly and the daily writes")
        return real(self, collection, documents, start, end)

    monkeypatch.setattr(rollups.RollupManager, "_replace_buckets", crashing)
    with pytest.raises(RuntimeError):
        RollupProgress.objects.rollup()
    assert get_collection("stats.hourly").count_documents({}) > 0
    assert get_collection("stats.daily").count_documents({}) == 0
    assert RollupProgress.objects.progress()["pending"] is not None
    monkeypatch.undo()
    RollupProgress.objects.rollup()
    assert_rolled_up_from_nothing_the_same(snapshot())
    assert figures("daily", "store", at(2021, 4, 2)) == (3500, 2, 4)


def test_a_run_reads_the_levels_kind_by_kind_on_the_kind_period_index(shop):  # noqa: F811
    """Every read of a level names one kind and a range of ``d`` (index ``kind_period``): the levels
    keep no index on ``d`` alone, which would cost each bucket inserted (local-server difference 23)."""
    add_sales(spread(60, at(2021, 1, 1), 24 * 60))
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    levels = {level.collection for level in LEVELS}
    reads = [command for (collection, op), command in zip(ops.operations, ops.commands)
             if collection in levels and op == "find"]
    assert reads
    for command in reads:
        assert set(command["filter"]) == {"kind", "d"} and command["filter"]["kind"] in bucketing.KINDS, command
    assert {tuple(sorted(get_collection(name).index_information())) for name in levels} == {
        ("_id_", "key_period", "kind_period")}
    assert figures("monthly", "store", at(2021, 2, 1)) == (2800, 28, 28)


def test_weeks_months_and_years_the_hourly_pass_covers_whole_are_not_read_back(shop):  # noqa: F811
    """The weekly, monthly and yearly buckets of periods whose every day the hourly pass recomputes
    are summed in memory from the daily buckets it builds: only the periods it covers in part
    (the first and the last week and month) are read back from stats.daily; the documents are
    those of each level rolled on its own from the level below."""
    add_sales(spread(120, at(2021, 1, 1), 24 * 59))  # Friday January 1 to Sunday February 28
    with count_operations() as ops:
        RollupProgress.objects.rollup()
    read_back = [command["filter"]["d"] for (collection, op), command in zip(ops.operations, ops.commands)
                 if (collection, op) == ("stats.daily", "find")]
    # Each window's stored daily documents (compared before writing: 3 kinds a window of the hourly
    # pass) and, for the weekly level, the one partial week, December 28 - January 4 (its days
    # before January 1 are not recomputed): the week of February 22 ends on March 1, and January
    # and February are whole months, so the monthly level reads nothing back.
    windows = rollups.level_windows(LEVELS[0], [(at(2021, 1, 1), at(2021, 3, 1))])
    assert sorted((d["$gte"], d["$lt"]) for d in read_back) == sorted(
        windows * 3 + [(at(2020, 12, 28), at(2021, 1, 4))] * 3)
    carried = {level.name: sorted(get_collection(level.collection).find(), key=lambda d: d["_id"])
               for level in LEVELS[2:]}
    assert carried["monthly"] and carried["weekly"]
    whole = {"weekly": (at(2020, 12, 28), at(2021, 3, 8)), "monthly": (at(2020, 12, 1), at(2021, 4, 1)),
             "yearly": (at(2020, 1, 1), at(2022, 1, 1))}
    for level in LEVELS[2:]:
        get_collection(level.collection).delete_many({})
        RollupProgress.objects.roll_level(level, [whole[level.name]])
    assert {level.name: sorted(get_collection(level.collection).find(), key=lambda d: d["_id"])
            for level in LEVELS[2:]} == carried
    assert figures("monthly", "store", at(2021, 2, 1)) == (5600, 56, 56)


def test_complete_periods_and_the_runs_left_to_read():
    days = [(at(2021, 1, 1), at(2021, 3, 1))]
    assert sorted(bucketing.complete_periods("month", days)) == [at(2021, 1, 1), at(2021, 2, 1)]
    assert bucketing.complete_periods("year", days) == set()
    weeks = bucketing.complete_periods("week", days)
    assert min(weeks) == at(2021, 1, 4) and max(weeks) == at(2021, 2, 22) and len(weeks) == 8
    assert bucketing.incomplete_ranges("week", at(2020, 12, 28), at(2021, 3, 8), weeks - {at(2021, 1, 18)}) == [
        (at(2020, 12, 28), at(2021, 1, 4)), (at(2021, 1, 18), at(2021, 1, 25)), (at(2021, 3, 1), at(2021, 3, 8))]


def test_a_first_run_with_nothing_recorded_by_until_rolls_nothing(shop):  # noqa: F811
    add_sales(spread(3, at(2021, 3, 1), 2))
    report = RollupProgress.objects.rollup(until=at(2000, 1, 1))
    assert report["hours"] == 0 and stats_documents() == 0
