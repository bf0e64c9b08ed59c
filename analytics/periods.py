"""The rollup levels and their periods ("Hierarchical Aggregation" use case).

``LEVELS``: the hierarchy ``stats.hourly`` -> ``stats.daily`` -> ``stats.weekly``
and ``stats.daily`` -> ``stats.monthly`` -> ``stats.yearly``, each ``Level``
naming its collection (``level.collection``); the index specs, the rollups and
the sharding plan read the ``stats.*`` collection names from here. The period
functions work on aware UTC datetimes.

``stats.hourly`` stores one document per key and UTC *day* holding that day's
hours (``Level.span`` ``"day"``: MongoDB's "pre-aggregated reports" shape),
every other level one document per key and period: a year of a busy shop
is about 1.1 million (key, hour) buckets but about 140,000 (key, day)
documents, and each stored document costs its insert and its index entries.
"""

import calendar
import datetime
from dataclasses import dataclass

from django.core.exceptions import BadRequest

from core import clock


@dataclass(frozen=True)
class Level:
    """One rollup level: its name, the level it is rolled up from (None: the events), its period
    (``unit``) and the period one stored document spans (``span``: ``unit`` unless given)."""

    name: str
    source: str | None
    unit: str
    span_unit: str | None = None

    @property
    def span(self):
        """The period one stored document of the level covers: ``span_unit`` or ``unit``."""
        return self.span_unit or self.unit

    @property
    def collection(self):
        """The level's collection name: ``"stats.<name>"``."""
        return f"stats.{self.name}"


#: The "Category Hierarchy" use case's hierarchy, in the order a run writes it.
LEVELS = [
    Level("hourly", None, "hour", "day"),
    Level("daily", "hourly", "day"),
    Level("weekly", "daily", "week"),
    Level("monthly", "daily", "month"),
    Level("yearly", "monthly", "year"),
]
LEVELS_BY_NAME = {level.name: level for level in LEVELS}


def period_start(unit, moment):
    """The start (aware UTC) of the ``unit`` period holding ``moment``.

    Units: ``hour``, ``day``, ``week`` (ISO weeks: Monday 00:00 UTC, so a
    week may span two months or two years; the source's weekly map used an
    undefined ``dt``), ``month``, ``year`` (January 1st: the source's yearly
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


def widen(unit, ranges):
    """``ranges`` (``(start, end)`` pairs, aware UTC, in order) widened to whole ``unit`` periods,
    overlapping and adjacent ones joined: e.g. hour ranges to the days holding them."""
    widened = []
    for start, end in ranges:
        start = period_start(unit, start)
        last = period_start(unit, end - datetime.timedelta(microseconds=1))
        end = period_end(unit, last)
        if widened and widened[-1][1] >= start:
            widened[-1][1] = max(widened[-1][1], end)
        else:
            widened.append([start, end])
    return [tuple(r) for r in widened]


UTC = datetime.UTC


@dataclass
class Period:
    """The dashboard's period: all time, a year, or a month of a year.

    ``start``/``end``: the UTC range (None = open); ``level``: the rollup
    level summed for totals and top lists; ``series_level``: the level of the
    chart's bars (years, months or days).
    """

    year: int | None = None
    month: int | None = None

    @classmethod
    def from_query(cls, query):
        """Read ``year`` and ``month`` from a QueryDict; raises BadRequest for bad values."""
        year, month = query.get("year"), query.get("month")
        if month and not year:
            raise BadRequest("A month needs a year.")
        try:
            year = int(year) if year else None
            month = int(month) if month else None
        except ValueError:
            raise BadRequest("The year and the month must be numbers.") from None
        if year is not None and not 1970 <= year <= 9999:
            raise BadRequest("The year must be between 1970 and 9999.")
        if month is not None and not 1 <= month <= 12:
            raise BadRequest("The month must be between 1 and 12.")
        return cls(year, month)

    @property
    def start(self):
        if self.year is None:
            return None
        return datetime.datetime(self.year, self.month or 1, 1, tzinfo=UTC)

    @property
    def end(self):
        if self.year is None:
            return None
        return period_end("month" if self.month else "year", self.start)

    @property
    def level(self):
        return "monthly" if self.month else "yearly"

    @property
    def series_level(self):
        return "daily" if self.month else "monthly" if self.year else "yearly"

    @property
    def label(self):
        if self.year is None:
            return "All time"
        if self.month is None:
            return str(self.year)
        return f"{calendar.month_name[self.month]} {self.year}"

    @property
    def query(self):
        """The period as a query string: ``""``, ``"?year=2023"`` or ``"?year=2023&month=3"``."""
        if self.year is None:
            return ""
        return f"?year={self.year}" + (f"&month={self.month}" if self.month else "")
