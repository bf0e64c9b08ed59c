"""The staff dashboard and reports (inside the admin: staff only, the admin's look).

Thin: parse the period (``periods.Period``), bring the statistics up to date
(``ensure_fresh``), call ``RollupProgress.objects`` and the reports (``Product.reports``, each level's ``reports``), draw
the charts (``charts``), render.
Everything shown comes from the rollups (``stats.*``) and the catalog, never
from the raw events.
"""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin, messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from catalog.models import Product

from .charts import chart_svg, daily_monthly_or_yearly_bars, every_month_bars
from .freshness import ensure_fresh
from .funnel import funnel
from .managers.rollups import TAKEOVER_AFTER_SECONDS
from .models import DailyStat, MonthlyStat, RollupProgress
from .periods import Period


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
    bars = daily_monthly_or_yearly_bars(period, stats.buckets(period.series_level, "store", period.start, period.end))
    chart = chart_svg(bars, {"yearly": "Revenue and units by year",
                          "monthly": f"Revenue and units by month, {period.label}",
                          "daily": f"Revenue and units by day, {period.label}"}[period.series_level])
    month_bars, month_chart = [], None
    if period.year is None:
        month_bars = every_month_bars(stats.buckets("monthly", "store"))
        if month_bars:
            month_chart = chart_svg(month_bars, "Revenue and units by month")
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
    descriptions (today), and the period's monthly totals with tax and sales by weekday (the Russian article's aggregation operators). Rolls up first when the statistics are stale, like the dashboard."""
    period = Period.from_query(request.GET)
    freshness = ensure_fresh()
    years = [b["d"].year for b in RollupProgress.objects.buckets("yearly")]
    missing_count, missing = Product.reports.missing_descriptions()
    context = {
        **admin.site.each_context(request),
        "title": f"Sales reports: {period.label}",
        "period": period,
        "years": years,
        "price_bands": Product.reports.price_bands(),
        "missing_count": missing_count,
        "missing": missing,
        "tax_percent": settings.ANALYTICS_TAX_PERCENT,
        "with_tax": MonthlyStat.reports.totals_with_tax(period.start, period.end, settings.ANALYTICS_TAX_PERCENT),
        "weekdays": DailyStat.reports.sales_by_weekday(period.start, period.end),
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
