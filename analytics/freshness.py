"""Figures up to date without an operator: the staff pages roll up on opening when they are stale.

The "Hierarchical Aggregation" use case's rollups run from cron on a production server (``rollup_stats``);
the default set-up has no cron, and a page showing figures older than the
rollup lag misleads staff. So the dashboard and the reports call
``ensure_fresh()`` first: when the events recorded up to
``ANALYTICS_ROLLUP_LAG`` seconds ago are not all in the statistics, it runs
the incremental rollup (``RollupProgress.objects.rollup``) itself, under the
rollups' pending/done protocol in ``stats.progress``. The range is claimed
with a conditional write, so two staff opening the page at once roll up once:
the other waits for that run (up to ``WAIT_SECONDS``) and then shows its
figures. ``Freshness`` says how fresh the figures shown are.
"""

import datetime
import time
from dataclasses import dataclass

from django.conf import settings

from core import clock

from .managers.rollups import TAKEOVER_AFTER_SECONDS
from .models import RollupProgress

#: Events recorded in the last seconds wait for the next rollup, so that a write
#: still in flight when the page rolls up is not skipped (the watermark is ``recorded``).
IN_FLIGHT_SECONDS = 5
#: How long a page waits for a rollup another request is running, and how often it looks.
WAIT_SECONDS = 10
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class Freshness:
    """How fresh the figures shown are.

    ``done_until``: every event recorded up to then (aware UTC) is in the
    statistics, None before the first rollup; ``now``: when the page looked;
    ``rolled_up``: this request ran the rollup; ``running_since``: when the
    rollup still under way (another request's, or a crashed one) claimed its
    range, else None; ``lag``: the promise, in seconds.
    """

    done_until: datetime.datetime | None
    now: datetime.datetime
    lag: int
    rolled_up: bool = False
    running_since: datetime.datetime | None = None

    @property
    def age_seconds(self):
        """Seconds between ``done_until`` and ``now`` (an int), or None before the first rollup."""
        if self.done_until is None:
            return None
        return max(0, int((self.now - self.done_until).total_seconds()))

    @property
    def fresh(self):
        """True when the figures are no older than the lag."""
        return self.age_seconds is not None and self.age_seconds <= self.lag


def _fresh(progress, now, lag):
    done = progress["done_until"]
    return done is not None and now - done <= datetime.timedelta(seconds=lag)


def ensure_fresh(lag=None, wait=WAIT_SECONDS, sleep=time.sleep):
    """Roll up first if the statistics are older than ``lag`` seconds; returns a ``Freshness``.

    ``lag``: default ``settings.ANALYTICS_ROLLUP_LAG``. Fresh statistics
    cost one read (``stats.progress``). Stale ones cost that read and an
    incremental rollup up to ``IN_FLIGHT_SECONDS`` ago (or up to now when
    ``lag`` is smaller), which claims its range first. When another run
    holds the claim, waits for it up to ``wait`` seconds (one read every
    ``POLL_SECONDS``); if that run finished short of the lag (``rollup_stats``
    from cron leaves its own lag), rolls up once more. Never raises for a
    concurrent run; database errors propagate.
    """
    lag = settings.ANALYTICS_ROLLUP_LAG if lag is None else int(lag)
    stats = RollupProgress.objects
    now = clock.now()
    progress = stats.progress()
    for _attempt in range(2):  # again once, if the run waited for stopped short of the lag
        if _fresh(progress, now, lag):
            pending = progress["pending"]
            return Freshness(progress["done_until"], now, lag, running_since=pending and pending["claimed"])
        until = now - datetime.timedelta(seconds=min(IN_FLIGHT_SECONDS, lag))
        report = stats.rollup(until=until, takeover_after=TAKEOVER_AFTER_SECONDS)
        if not report["claimed_elsewhere"]:
            return Freshness(report["until"], now, lag, rolled_up=True)
        progress = _wait_for_the_other_run(stats, wait, sleep)
        if progress["pending"] is not None:
            break
    pending = progress["pending"]
    return Freshness(progress["done_until"], now, lag,
                     running_since=(pending["claimed"] or now) if pending else None)


def _wait_for_the_other_run(stats, wait, sleep):
    """Read ``stats.progress`` every ``POLL_SECONDS`` until no range is pending, ``wait`` seconds
    at most; returns the last progress read."""
    deadline = time.monotonic() + wait
    while True:
        progress = stats.progress()
        if progress["pending"] is None or time.monotonic() >= deadline:
            return progress
        sleep(POLL_SECONDS)
