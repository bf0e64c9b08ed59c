"""Figures up to date without an operator: opening the dashboard rolls up first when the
statistics are older than the lag, once even when two staff open it at once; the page says how
fresh its figures are; the rollups claim their range on stats.progress."""

import datetime
import threading
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from analytics import freshness
from analytics.managers import RollupManager
from analytics.managers.rollups import PROGRESS_ID, TAKEOVER_AFTER_SECONDS
from analytics.models import Event, RollupProgress
from core import clock as shop_clock
from core.mongo import get_collection
from core.mongo.counter import count_operations
from tests.support.sales import analyst
from tests.support.threads import run_many

UTC = datetime.UTC


def at(*parts):
    return datetime.datetime(*parts, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    """Move the analytics' clock: ``clock(seconds)`` sets it that far past the real now."""
    real = shop_clock.now

    def move(seconds):
        moved = real() + datetime.timedelta(seconds=seconds)
        monkeypatch.setattr(shop_clock, "now", lambda: moved)
        return moved

    return move


def a_new_sale():
    """A sale recorded now, in 2024 (after the fixture's rollup)."""
    Event.objects.record_order("cart-new", [{"sku": "A", "qty": 1, "price": 1000}], ts=at(2024, 1, 1, 9))


def revenue_2024(response):
    return dict((b["label"], b["total"]) for b in response.context["bars"])["2024"]


@pytest.fixture
def rollups(monkeypatch):
    """Count the ranges rolled (``_roll_range`` calls); each takes ``slow[0]`` seconds more."""
    calls, slow = [], [0.0]
    original = RollupManager._roll_range

    def counted(self, after, until, run):
        calls.append(until)
        threading.Event().wait(slow[0])
        return original(self, after, until, run)

    monkeypatch.setattr(RollupManager, "_roll_range", counted)
    return calls, slow


def test_a_stale_dashboard_rolls_up_before_showing_its_figures(staff_client, sales, clock, rollups):
    a_new_sale()
    assert revenue_2024(staff_client.get("/admin/analytics/")) == 1800  # fresh: the sale waits
    later = clock(120)
    response = staff_client.get("/admin/analytics/")
    assert revenue_2024(response) == 2800
    shown = response.context["freshness"]
    assert shown.rolled_up and shown.fresh and shown.done_until == later - datetime.timedelta(seconds=5)
    html = response.content.decode()
    assert "Figures include every event recorded up to" in html and "rolled up on opening it" in html
    assert len(rollups[0]) == 1
    assert not staff_client.get("/admin/analytics/").context["freshness"].rolled_up  # fresh again
    assert len(rollups[0]) == 1


def test_the_lag_is_a_setting(staff_client, sales, clock, rollups, settings):
    clock(120)
    settings.ANALYTICS_ROLLUP_LAG = 300
    assert not staff_client.get("/admin/analytics/").context["freshness"].rolled_up
    settings.ANALYTICS_ROLLUP_LAG = 60
    assert staff_client.get("/admin/analytics/").context["freshness"].rolled_up


def test_round_trips_with_the_rollup_when_stale_and_without_it_when_fresh(staff_client, sales, clock):
    staff_client.get("/admin/analytics/?year=2023")
    with count_operations() as fresh:
        staff_client.get("/admin/analytics/?year=2023")
    # The session (server-side), the user, 2 permission reads for the admin's app list,
    # stats.progress, the months' buckets, the year's totals, the top products and the top categories.
    assert fresh.total == 9 and fresh.writes == 0, fresh.operations
    assert "events" not in {collection for collection, _op in fresh.operations}
    a_new_sale()
    clock(120)
    with count_operations() as stale:
        staff_client.get("/admin/analytics/?year=2023")
    # + the rollup: stats.progress read, the claim, the hours touched, the products' and the
    # categories' keys (5), then each of the five levels: its source (the events: 1; a level
    # below: 3, one per kind of key), the buckets stored (3, one per kind), and two bulk writes
    # (A's buckets of 2024 are new: inserted; the store's changed: replaced), the daily level's
    # source being the hourly pass itself (no read); done.
    assert stale.total == fresh.total + 5 + (1 + 3 + 2) + (3 + 2) + 3 * (3 + 3 + 2) + 1, stale.operations
    assert stale.writes == 12, stale.operations
    assert sum(1 for collection, _op in stale.operations if collection == "events") == 2


def test_two_staff_opening_the_stale_dashboard_at_once_roll_up_once(sales, clock, rollups):
    a_new_sale()
    clock(120)
    rollups[1][0] = 0.5  # the first rollup is still running when the second page looks
    staff = analyst()
    clients = [Client(), Client()]
    for client in clients:
        client.force_login(staff)
    responses = run_many(lambda number: clients[number].get("/admin/analytics/"), 2)
    assert len(rollups[0]) == 1
    assert [r.status_code for r in responses] == [200, 200]
    # (The test client's captured contexts mix across threads: read the pages themselves.)
    pages = [r.content.decode() for r in responses]
    assert sorted("rolled up on opening it" in page for page in pages) == [False, True]
    # The one that waited shows the other's figures, as fresh.
    assert all('<a href="?year=2024">2024</a>' in page and "$28.00" in page for page in pages)
    assert not any("still under way" in page for page in pages)


def test_concurrent_rollups_claim_the_range_once(sales, rollups):
    a_new_sale()
    rollups[1][0] = 0.3
    reports = run_many(lambda _number: RollupProgress.objects.rollup(takeover_after=TAKEOVER_AFTER_SECONDS), 2)
    assert sorted(r["claimed_elsewhere"] for r in reports) == [False, True]
    assert len(rollups[0]) == 1
    assert RollupProgress.objects.progress()["pending"] is None


def claim(seconds_ago):
    """Leave a pending range claimed ``seconds_ago`` by a run that is not there (or still running)."""
    done = RollupProgress.objects.progress()["done_until"]
    get_collection("stats.progress").update_one({"_id": PROGRESS_ID}, {"$set": {"pending": {
        "from": done, "until": done + datetime.timedelta(seconds=1), "run": "other",
        "claimed": shop_clock.now() - datetime.timedelta(seconds=seconds_ago)}}})


def test_a_rollup_under_way_is_waited_for_and_not_doubled(staff_client, sales, clock, rollups, monkeypatch):
    monkeypatch.setattr(freshness, "WAIT_SECONDS", 0.3)
    claim(seconds_ago=0)
    clock(120)
    response = staff_client.get("/admin/analytics/")
    assert rollups[0] == []
    shown = response.context["freshness"]
    assert shown.running_since is not None and not shown.fresh and not shown.rolled_up
    assert "is still under way: these figures are older than 60 seconds" in response.content.decode()


def test_a_claim_left_by_a_crash_is_taken_over_by_the_page(staff_client, sales, clock, rollups):
    claim(seconds_ago=TAKEOVER_AFTER_SECONDS + 1)
    a_new_sale()
    clock(120)
    response = staff_client.get("/admin/analytics/")
    assert len(rollups[0]) == 2  # the crashed range, then the new one
    assert response.context["freshness"].rolled_up and revenue_2024(response) == 2800
    assert RollupProgress.objects.progress()["pending"] is None


def test_the_command_leaves_a_running_claim_alone_unless_told(sales, rollups):
    claim(seconds_ago=0)
    out = StringIO()
    call_command("rollup_stats", stdout=out)
    assert "Another rollup holds the range; nothing done" in out.getvalue() and rollups[0] == []
    assert RollupProgress.objects.progress()["pending"]["run"] == "other"
    call_command("rollup_stats", "--takeover-after", "0", stdout=out)
    assert "Resumed the unfinished previous run." in out.getvalue() and len(rollups[0]) == 1
    assert RollupProgress.objects.progress()["pending"] is None
    with pytest.raises(CommandError):
        call_command("rollup_stats", "--takeover-after", "-1")


def test_a_run_whose_claim_was_taken_over_leaves_the_new_claim_alone(sales):
    stats = RollupProgress.objects
    claim(seconds_ago=0)
    stats._roll_range(None, shop_clock.now(), run="not the claimant")
    assert stats.progress()["pending"]["run"] == "other"


def test_the_button_says_when_another_rollup_holds_the_range(staff_client, sales, monkeypatch):
    monkeypatch.setattr(RollupManager, "rollup", lambda self, **kw: {"claimed_elsewhere": True})
    response = staff_client.post("/admin/analytics/rollup/?year=2023", follow=True)
    assert response.redirect_chain[-1][0] == "/admin/analytics/?year=2023"
    assert "Another rollup is under way" in response.content.decode()


def test_the_first_opening_of_an_empty_shop_rolls_up(staff_client):
    assert RollupProgress.objects.progress()["done_until"] is None
    response = staff_client.get("/admin/analytics/")
    assert response.context["freshness"].rolled_up
    assert RollupProgress.objects.progress()["done_until"] is not None


def test_after_waiting_for_a_run_that_stopped_short_of_the_lag_the_page_rolls_up(sales, clock, rollups):
    """E.g. rollup_stats from cron, which leaves its own lag: its figures are still too old."""
    claim(seconds_ago=0)
    a_new_sale()
    clock(120)

    def the_other_run_finishes(_seconds):
        get_collection("stats.progress").update_one({"_id": PROGRESS_ID}, {"$unset": {"pending": ""}})

    shown = freshness.ensure_fresh(sleep=the_other_run_finishes)
    assert shown.rolled_up and shown.fresh and len(rollups[0]) == 1
