"""The staff dashboard and reports (inside the admin: staff only, the admin's look).

Thin: parse the period, bring the statistics up to date (``ensure_fresh``),
call ``RollupProgress.objects`` / ``Event.reports``, draw the charts, render.
Everything shown comes from the rollups (``stats.*``) and the catalog, never
from the raw events.
"""

import calendar
import datetime
from dataclasses import dataclass

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import BadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from .charts import revenue_and_units_svg
from .freshness import ensure_fresh
from .funnel import funnel
from .managers.rollups import TAKEOVER_AFTER_SECONDS
from .models import Event, RollupProgress
from .periods import period_end

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


def _bars(period, buckets):
    """``[{label, link, total, units, count, mean}, ...]``: one bar per year, month or day.

    Years come from the data; the months of a year and the days of a month
    are all listed (zero when nothing sold).
    """
    by_start = {b["d"]: b for b in buckets}
    if period.year is None:
        starts = sorted(by_start)
        labelled = [(d, str(d.year), f"?year={d.year}") for d in starts]
    elif period.month is None:
        starts = [datetime.datetime(period.year, m, 1, tzinfo=UTC) for m in range(1, 13)]
        labelled = [(d, calendar.month_abbr[d.month], f"?year={d.year}&month={d.month}") for d in starts]
    else:
        days = calendar.monthrange(period.year, period.month)[1]
        starts = [datetime.datetime(period.year, period.month, n, tzinfo=UTC) for n in range(1, days + 1)]
        labelled = [(d, str(d.day), None) for d in starts]
    bars = []
    for start, label, link in labelled:
        bucket = by_start.get(start, {})
        bars.append({"label": label, "link": link, "start": start, "total": bucket.get("total", 0),
                     "units": bucket.get("units", 0), "count": bucket.get("count", 0),
                     "mean": bucket.get("mean", 0)})
    return bars


def _every_month(buckets):
    """One bar per month from the first bucket's month to the last one's, zero where nothing
    sold (so that the chart's axis keeps time): ``[{label "YYYY-MM", link, total, units, count,
    mean}, ...]``."""
    if not buckets:
        return []
    by_start = {b["d"]: b for b in buckets}
    bars, month, last = [], buckets[0]["d"], buckets[-1]["d"]
    while month <= last:
        bucket = by_start.get(month, {})
        bars.append({"label": f"{month:%Y-%m}", "link": f"?year={month.year}&month={month.month}",
                     **{m: bucket.get(m, 0) for m in ("total", "units", "count", "mean")}})
        month = period_end("month", month)
    return bars


def _chart(bars, title):
    # mark_safe: matplotlib's SVG of our own figures (bandit B308/B703 reviewed).
    return mark_safe(revenue_and_units_svg(  # noqa: S308  # nosec
        [b["label"] for b in bars], [b["total"] for b in bars], [b["units"] for b in bars], title))


# matplotlib's inline SVG styles its shapes with style attributes and a <style>
# element (the pages' own styles are a static file): the shop's
# Content-Security-Policy allows inline styles on these two staff pages only;
# scripts stay 'self' only.
STAFF_CHART_STYLES = csp_update({"style-src": [UNSAFE_INLINE]})


@STAFF_CHART_STYLES
def dashboard(request):
    """``/admin/analytics/``: revenue and units charts, drill-down year -> months -> days,
    top products and categories and the funnel for the period (``?year=&month=``).

    Rolls up first when the statistics are older than ``ANALYTICS_ROLLUP_LAG``
    (``analytics.freshness``)."""
    period = Period.from_query(request.GET)
    freshness = ensure_fresh()
    stats = RollupProgress.objects
    bars = _bars(period, stats.buckets(period.series_level, "store", period.start, period.end))
    chart = _chart(bars, {"yearly": "Revenue and units by year",
                          "monthly": f"Revenue and units by month, {period.label}",
                          "daily": f"Revenue and units by day, {period.label}"}[period.series_level])
    month_bars, month_chart = [], None
    if period.year is None:
        month_bars = _every_month(stats.buckets("monthly", "store"))
        if month_bars:
            month_chart = _chart(month_bars, "Revenue and units by month")
    totals = stats.totals(period.level, period.start, period.end)
    context = {
        **admin.site.each_context(request),
        "title": f"Sales dashboard: {period.label}",
        "period": period,
        "bars": bars,
        "chart": chart,
        "month_bars": month_bars,
        "month_chart": month_chart,
        "totals": totals,
        "funnel": funnel(totals),
        "top_products": stats.top("sku", period.level, period.start, period.end),
        "top_categories": stats.top("category", period.level, period.start, period.end),
        "freshness": freshness,
    }
    return render(request, "analytics/dashboard.html", context)


@STAFF_CHART_STYLES
def reports(request):
    """``/admin/analytics/reports/?year=&month=``: the catalog's price bands and missing
    descriptions (today), and the period's monthly totals with tax and sales by weekday (seed
    004's operators). Rolls up first when the statistics are stale, like the dashboard."""
    period = Period.from_query(request.GET)
    freshness = ensure_fresh()
    years = [b["d"].year for b in RollupProgress.objects.buckets("yearly")]
    missing_count, missing = Event.reports.missing_descriptions()
    context = {
        **admin.site.each_context(request),
        "title": f"Sales reports: {period.label}",
        "period": period,
        "years": years,
        "price_bands": Event.reports.price_bands(),
        "missing_count": missing_count,
        "missing": missing,
        "tax_percent": settings.ANALYTICS_TAX_PERCENT,
        "with_tax": Event.reports.totals_with_tax(period.start, period.end, settings.ANALYTICS_TAX_PERCENT),
        "weekdays": Event.reports.sales_by_weekday(period.start, period.end),
        "freshness": freshness,
    }
    return render(request, "analytics/reports.html", context)


@require_POST
def rollup_now(request):
    """POST ``/admin/analytics/rollup/[?year=&month=]``: roll up every event recorded until now,
    then back to the dashboard's period with what it did. The dashboard rolls up by itself when its
    figures are older than ``ANALYTICS_ROLLUP_LAG``; this is for the events of the last minute."""
    period = Period.from_query(request.GET)
    report = RollupProgress.objects.rollup(takeover_after=TAKEOVER_AFTER_SECONDS)
    if report["claimed_elsewhere"]:
        messages.info(request, "Another rollup is under way; its figures appear when it finishes.")
    else:
        messages.success(request, f"Rolled up: {report['hours']} hour{'s' * (report['hours'] != 1)} recomputed.")
    return redirect(reverse("analytics:dashboard") + period.query)
