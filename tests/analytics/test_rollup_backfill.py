"""Migration 0003: stats.hourly's per-hour documents (the earlier form) regrouped into day documents,
safely again after a crash in the middle."""

import pytest

from analytics import backfills
from analytics.bucketing import hour_rows
from analytics.models import RollupProgress
from core.mongo import get_collection

from tests.analytics.test_rollups import SALES, add_funnel_events, add_sales, at, shop  # noqa: F401 - fixture


def day_documents_now():
    return sorted(get_collection("stats.hourly").find(), key=lambda d: d["_id"])


def to_old_shape(days):
    """The per-hour documents the rollups wrote before day documents, from day documents."""
    old = []
    for day in days:
        for row in hour_rows(day):
            old.append({"_id": f"{day['k']}|{row['d']:%Y-%m-%dT%H:%M:%SZ}", "k": day["k"], "d": row["d"],
                        "kind": day["kind"], "ref": day["ref"], **{m: v for m, v in row.items() if m != "d"}})
    get_collection("stats.hourly").delete_many({})
    get_collection("stats.hourly").insert_many(old)
    return len(old)


@pytest.fixture
def rolled(shop):  # noqa: F811
    # April 2nd: A sold at 00:10 (an hour whose old _id is its day document's) and at 10:20.
    add_sales(SALES + [(at(2021, 4, 2, 0, 10), "A", 1, 700)])
    add_funnel_events()
    RollupProgress.objects.rollup()
    return day_documents_now()


def test_per_hour_documents_become_day_documents(rolled, monkeypatch):
    old = to_old_shape(rolled)
    assert old > len(rolled)  # some key had two hours in a day
    monkeypatch.setattr(backfills, "BATCH", 3)
    assert backfills.hourly_to_days() == old
    assert day_documents_now() == rolled
    assert backfills.hourly_to_days() == 0
    assert day_documents_now() == rolled


@pytest.mark.parametrize("fail_after", [1, 2, 3])
def test_a_crash_during_the_deletes_then_a_rerun_gives_the_same_day_documents(rolled, monkeypatch, fail_after):
    """The n-th delete_many removes only half of its hours, then fails (a connection lost midway)."""
    from pymongo.collection import Collection

    to_old_shape(rolled)
    monkeypatch.setattr(backfills, "BATCH", 3)
    real = Collection.delete_many
    calls = []

    def delete_many(self, filter, *args, **kwargs):
        calls.append(1)
        if self.name == "stats.hourly" and len(calls) == fail_after:
            ids = filter["_id"]["$in"]
            real(self, {"_id": {"$in": ids[: len(ids) // 2 + 1]}})
            raise ConnectionError("lost midway")
        return real(self, filter, *args, **kwargs)

    monkeypatch.setattr(Collection, "delete_many", delete_many)
    with pytest.raises(ConnectionError):
        backfills.hourly_to_days()
    monkeypatch.setattr(Collection, "delete_many", real)
    backfills.hourly_to_days()
    assert day_documents_now() == rolled


def test_a_crash_before_deleting_a_day_s_other_hours_keeps_the_midnight_hour(rolled, monkeypatch):
    """April 2nd's 00:00 hour was replaced by its day document (same _id); the crash comes before
    the 10:00 hour is deleted: the rerun writes the day again from 10:00 and the stored day's 00:00."""
    from pymongo.collection import Collection

    to_old_shape(rolled)
    monkeypatch.setattr(backfills, "BATCH", 3)
    real = Collection.delete_many
    crashed = []

    def delete_many(self, filter, *args, **kwargs):
        if self.name == "stats.hourly" and not crashed and any(
                i.endswith("|2021-04-02T10:00:00Z") for i in filter["_id"]["$in"]):
            crashed.append(True)
            raise ConnectionError("lost before the delete")
        return real(self, filter, *args, **kwargs)

    monkeypatch.setattr(Collection, "delete_many", delete_many)
    with pytest.raises(ConnectionError):
        backfills.hourly_to_days()
    monkeypatch.setattr(Collection, "delete_many", real)
    backfills.hourly_to_days()
    assert day_documents_now() == rolled
