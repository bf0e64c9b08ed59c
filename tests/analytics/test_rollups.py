"""Hierarchical rollups ("Hierarchical Aggregation" use case): hand-checked figures at every level, incremental runs,
idempotence, crash recovery, categories counting their descendants' sales."""

import datetime

import pytest

from analytics.managers import RollupManager
from analytics.managers.rollups import written_by
from analytics.models import Event, RollupProgress
from analytics.periods import LEVELS, period_start, ranges_covering
from catalog.models import Pricing, Product
from core.mongo import get_collection

UTC = datetime.UTC


def at(*parts):
    return datetime.datetime(*parts, tzinfo=UTC)


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal, Music > Jazz; A in Metal, B in Rock and Metal, C in Jazz."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    for sku, categories in [("A", ["Metal"]), ("B", ["Rock", "Metal"]), ("C", ["Jazz"])]:
        Product.objects.create(
            sku=sku, type="Audio Album", title=f"Album {sku}",
            categories=[tree[name].pk for name in categories], pricing=Pricing.from_prices(1000, 999),
        )
    return tree


# (when, SKU, qty, amount in cents)
SALES = [
    (at(2020, 12, 31, 23, 30), "A", 1, 1000),  # Thursday of ISO week 2020-W53, year 2020
    (at(2021, 1, 1, 0, 15), "B", 2, 3000),  # Friday, still 2020-W53, year 2021
    (at(2021, 1, 3, 23, 59, 59), "C", 1, 500),  # Sunday: the last second of 2020-W53
    (at(2021, 1, 4, 0, 0), "A", 1, 1000),  # Monday: 2021-W01
    (at(2021, 3, 31, 10, 0), "B", 1, 1500),  # Wednesday of the week of Monday March 29 ...
    (at(2021, 4, 2, 10, 20), "A", 3, 3000),  # ... which ends in April
    (at(2021, 4, 2, 10, 50), "C", 1, 500),
]


def add_sales(sales, prefix="test"):
    Event.objects.import_sales(
        [{"ref": f"{prefix}:{n}", "sku": sku, "qty": qty, "amount": amount, "ts": ts, "userid": "x@example.com"}
         for n, (ts, sku, qty, amount) in enumerate(sales)],
        f"{prefix}:",
    )


def add_funnel_events():
    Event.objects.insert_generated([
        {"type": "view", "sku": "A", "qty": 1, "amount": 0, "userid": "", "ts": at(2021, 4, 2, 10, 5)},
        {"type": "view", "sku": "A", "qty": 1, "amount": 0, "userid": "", "ts": at(2021, 4, 2, 10, 6)},
        {"type": "cart", "sku": "A", "qty": 3, "amount": 0, "userid": "", "ts": at(2021, 4, 2, 10, 10)},
    ])


def bucket(level, key, d):
    """The bucket of ``key`` at ``level`` starting at ``d``, read through the manager (``stats.hourly``
    holds a day of hours per document)."""
    found = [row for row in RollupProgress.objects.buckets(level, key, d, d + datetime.timedelta(seconds=1))
             if row["d"] == d]
    if not found:
        return None
    return {m: found[0][m] for m in ("total", "count", "units", "mean", "views", "carts")}


def figures(level, key, d):
    found = bucket(level, key, d)
    return None if found is None else (found["total"], found["count"], found["units"])


def snapshot():
    """Every stats bucket, by collection and _id (dates normalised to aware UTC)."""
    result = {}
    for level in LEVELS:
        for document in get_collection(level.collection).find():
            document["d"] = period_start("hour", document["d"])
            result[(level.name, document["_id"])] = document
    return result


def assert_rolled_up_from_nothing_the_same(recovered):
    """Every level and the progress emptied, a rollup from the events alone gives ``recovered``
    (a ``snapshot()``): what a run finished after a crash holds is what a clean run holds."""
    for level in LEVELS:
        get_collection(level.collection).delete_many({})
    get_collection("stats.progress").delete_many({})
    RollupProgress.objects.rollup()
    assert recovered == snapshot()


def key(category):
    return f"category:{category.pk}"


def test_hourly_buckets_sum_the_events_of_each_hour(shop):
    add_sales(SALES)
    add_funnel_events()
    RollupProgress.objects.rollup()
    assert figures("hourly", "store", at(2020, 12, 31, 23)) == (1000, 1, 1)
    assert bucket("hourly", "store", at(2021, 4, 2, 10)) == {
        "total": 3500, "count": 2, "units": 4, "mean": 1750, "views": 2, "carts": 1}
    assert figures("hourly", "sku:A", at(2021, 4, 2, 10)) == (3000, 1, 3)
    assert figures("hourly", "sku:C", at(2021, 4, 2, 10)) == (500, 1, 1)
    assert bucket("hourly", "sku:B", at(2021, 4, 2, 10)) is None
    assert len(RollupProgress.objects.buckets("hourly", "store")) == 6


def test_daily_weekly_monthly_and_yearly_buckets(shop):
    add_sales(SALES)
    RollupProgress.objects.rollup()
    assert figures("daily", "store", at(2021, 1, 3)) == (500, 1, 1)
    assert figures("daily", "store", at(2021, 4, 2)) == (3500, 2, 4)
    # ISO week 53 of 2020: Monday Dec 28 to Sunday Jan 3, across the year boundary.
    assert bucket("weekly", "store", at(2020, 12, 28)) == {
        "total": 4500, "count": 3, "units": 4, "mean": 1500, "views": 0, "carts": 0}
    assert figures("weekly", "store", at(2021, 1, 4)) == (1000, 1, 1)
    # The week of Monday March 29 spans March and April.
    assert figures("weekly", "store", at(2021, 3, 29)) == (5000, 3, 5)
    assert {d["d"] for d in RollupProgress.objects.buckets("weekly")} == {
        at(2020, 12, 28), at(2021, 1, 4), at(2021, 3, 29)}
    # Months and years split that week and the week 53.
    assert figures("monthly", "store", at(2020, 12, 1)) == (1000, 1, 1)
    assert figures("monthly", "store", at(2021, 1, 1)) == (4500, 3, 4)
    assert figures("monthly", "store", at(2021, 3, 1)) == (1500, 1, 1)
    assert figures("monthly", "store", at(2021, 4, 1)) == (3500, 2, 4)
    assert figures("yearly", "store", at(2020, 1, 1)) == (1000, 1, 1)
    assert bucket("yearly", "store", at(2021, 1, 1)) == {
        "total": 9500, "count": 6, "units": 9, "mean": 9500 / 6, "views": 0, "carts": 0}


def test_category_figures_include_their_descendants_counted_once(shop):
    add_sales(SALES)
    RollupProgress.objects.rollup()
    music, rock, metal, jazz = (shop[n] for n in ("Music", "Rock", "Metal", "Jazz"))
    # B is listed in Rock and in Metal (under Rock): Rock counts each sale of B once.
    assert figures("yearly", key(rock), at(2021, 1, 1)) == (8500, 4, 7)
    assert figures("yearly", key(metal), at(2021, 1, 1)) == (8500, 4, 7)
    assert figures("yearly", key(jazz), at(2021, 1, 1)) == (1000, 2, 2)
    assert figures("yearly", key(music), at(2021, 1, 1)) == (9500, 6, 9)
    assert figures("yearly", key(music), at(2020, 1, 1)) == (1000, 1, 1)
    assert figures("weekly", key(rock), at(2020, 12, 28)) == (4000, 2, 3)
    assert figures("hourly", key(music), at(2021, 4, 2, 10)) == (3500, 2, 4)


def test_a_second_run_changes_nothing(shop):
    add_sales(SALES)
    add_funnel_events()
    RollupProgress.objects.rollup()
    before = snapshot()
    report = RollupProgress.objects.rollup()
    assert report["hours"] == 0
    assert snapshot() == before


def test_a_run_rolls_up_only_what_was_recorded_since_the_last_one(shop, monkeypatch):
    add_sales(SALES)
    RollupProgress.objects.rollup()
    add_sales([(at(2021, 4, 2, 10, 55), "A", 1, 1000), (at(2019, 6, 1, 12), "C", 1, 500)], prefix="late")
    written = []
    original = RollupManager.roll_level

    def spy(self, level, ranges, **options):
        written.append((level.name, ranges))
        return original(self, level, ranges, **options)

    monkeypatch.setattr(RollupManager, "roll_level", spy)
    report = RollupProgress.objects.rollup()
    assert report["hours"] == 2
    # Only the touched periods are recomputed: 2 hours, 2 days, ... 2 years.
    assert dict(written)["hourly"] == [
        (at(2019, 6, 1, 12), at(2019, 6, 1, 13)), (at(2021, 4, 2, 10), at(2021, 4, 2, 11))]
    assert figures("hourly", "store", at(2021, 4, 2, 10)) == (4500, 3, 5)
    assert figures("weekly", "store", at(2021, 3, 29)) == (6000, 4, 6)
    assert figures("yearly", "store", at(2021, 1, 1)) == (10500, 7, 10)
    # An event imported late with an old timestamp is counted too (the watermark is `recorded`).
    assert figures("yearly", "store", at(2019, 1, 1)) == (500, 1, 1)
    assert figures("yearly", "store", at(2020, 1, 1)) == (1000, 1, 1)


def test_events_recorded_after_until_wait_for_the_next_run(shop):
    add_sales(SALES[:1])
    RollupProgress.objects.rollup(until=at(2000, 1, 1))
    assert get_collection("stats.yearly").count_documents({}) == 0
    RollupProgress.objects.rollup()
    assert figures("yearly", "store", at(2020, 1, 1)) == (1000, 1, 1)
    assert RollupProgress.objects.progress()["pending"] is None


def test_rollup_refuses_a_naive_until():
    with pytest.raises(ValueError):
        RollupProgress.objects.rollup(until=datetime.datetime(2021, 1, 1))


class Crash(Exception):
    pass


# The daily level is written in the hourly level's pass (rollups.same_pass): its crash is
# test_rollup_round_trips.test_a_crash_between_the_hourly_and_the_daily_writes_is_redone.
@pytest.mark.parametrize("crash_after", [level.name for level in LEVELS if written_by(level) is None])
def test_a_crash_after_any_level_then_a_rerun_gives_the_figures_of_a_clean_run(shop, monkeypatch, crash_after):
    add_sales(SALES[:4])
    add_funnel_events()
    RollupProgress.objects.rollup()
    add_sales(SALES[4:] + [(at(2020, 12, 30, 8), "B", 1, 1500)], prefix="more")
    original = RollupManager.roll_level

    def crashing(self, level, ranges, **options):
        original(self, level, ranges, **options)
        if level.name == crash_after:
            raise Crash(level.name)

    monkeypatch.setattr(RollupManager, "roll_level", crashing)
    with pytest.raises(Crash):
        RollupProgress.objects.rollup()
    assert RollupProgress.objects.progress()["pending"] is not None
    monkeypatch.setattr(RollupManager, "roll_level", original)
    report = RollupProgress.objects.rollup()
    assert report["resumed"] is True
    assert RollupProgress.objects.progress()["pending"] is None
    assert_rolled_up_from_nothing_the_same(snapshot())
    assert figures("yearly", "store", at(2020, 1, 1)) == (2500, 2, 2)
    assert figures("yearly", "store", at(2021, 1, 1)) == (9500, 6, 9)


def test_ranges_cover_adjacent_periods_with_few_ranges():
    hours = [at(2021, 1, 1, h) for h in (0, 1, 2, 5)]
    assert ranges_covering("hour", hours) == [(at(2021, 1, 1, 0), at(2021, 1, 1, 3)),
                                              (at(2021, 1, 1, 5), at(2021, 1, 1, 6))]
    days = [at(2021, 1, d) for d in (1, 3, 4, 10, 20)]
    assert ranges_covering("day", days, max_ranges=2) == [(at(2021, 1, 1), at(2021, 1, 11)),
                                                          (at(2021, 1, 20), at(2021, 1, 21))]
    assert ranges_covering("month", [at(2021, 12, 1)]) == [(at(2021, 12, 1), at(2022, 1, 1))]


def test_period_starts():
    moment = at(2021, 1, 3, 23, 59, 59)
    assert period_start("hour", moment) == at(2021, 1, 3, 23)
    assert period_start("week", moment) == at(2020, 12, 28)
    assert period_start("week", at(2021, 1, 4, 0)) == at(2021, 1, 4)
    assert period_start("month", moment) == at(2021, 1, 1)
    assert period_start("year", moment) == at(2021, 1, 1)


def test_hourly_buckets_tallied_per_hour_equal_the_sums_event_by_event():
    # hourly_buckets tallies (sku, hour, type) and sums sales apart (issue 41: the per-event
    # work of a 1,000,000-event rollup); the buckets are the sums of each event's measures.
    import random

    from analytics import bucketing

    rng = random.Random(7)
    base = datetime.datetime(2021, 3, 28, 22, 0)
    events = []
    for _ in range(2000):
        ts = base + datetime.timedelta(seconds=rng.randrange(3 * 3600))
        if rng.random() < 0.3:
            ts = ts.replace(tzinfo=datetime.timezone.utc)  # aware and naive UTC alike
        kind = rng.choice(["view", "view", "cart", "sale", "refund", "other", None])
        event = {"type": kind, "sku": rng.choice(["A", "B", "Z", None]), "ts": ts, "qty": rng.randint(1, 3),
                 "amount": rng.choice([999, 1500, 0.5, "x", None])}
        if kind == "sale":
            event["ref"] = rng.choice([None, "order:1", "import:2"])
        events.append(event)
    keys = {"A": [("store", "store", None), ("sku:A", "sku", "A"), ("category:c", "category", "c")]}
    expected = {}
    for event in events:
        sku, hour = event["sku"], period_start("hour", event["ts"])
        owners = keys.get(sku) or [("store", "store", None)] + (
            [(f"sku:{sku}", "sku", sku)] if isinstance(sku, str) else [])
        for key, kind, ref in owners:
            bucket = expected.setdefault((key, hour), [kind, ref] + [0] * len(bucketing.MEASURES))
            for i, value in enumerate(bucketing.event_measures(event), 2):
                bucket[i] += value
    got = bucketing.hourly_buckets(iter(events), keys)
    assert got.keys() == expected.keys()
    for key, bucket in expected.items():
        assert got[key][:2] == bucket[:2]
        assert got[key][2:] == pytest.approx(bucket[2:])
