"""Charts of the staff dashboard, drawn on the server with matplotlib as inline SVG.

SVG needs no JavaScript to read, scales with the page, and is text (the
figures' labels stay selectable). Only ``Figure`` objects are used, never
pyplot, so no global state is shared between requests.
"""

import calendar
import datetime
import functools
import io
import math
import re

from django.utils.safestring import mark_safe

from .periods import period_end

REVENUE_COLOUR = "#417690"  # the admin's header blue
UNITS_COLOUR = "#79aec8"
#: At most this many labels under a chart: more are thinned (they would overlap).
MAX_TICKS = 12
_MONTH_LABEL = re.compile(r"(\d{4})-(\d{2})")
UTC = datetime.UTC


def thinned_ticks(labels, max_ticks=MAX_TICKS):
    """The ``(positions, labels)`` to write under the bars: every label if at most ``max_ticks``.

    Month labels (``YYYY-MM``) keep the months that start a quarter, a half
    year or a year (then written ``YYYY``), or one year in N, the first
    step that fits; other labels keep one in N from the first. Every bar
    stays; only its label goes.
    """
    if len(labels) <= max_ticks:
        return list(range(len(labels))), list(labels)
    months = [_MONTH_LABEL.fullmatch(label) for label in labels]
    if all(months):
        index = [int(m[1]) * 12 + int(m[2]) - 1 for m in months]
        step = 3
        while sum(1 for i in index if i % step == 0) > max_ticks:
            step = {3: 6, 6: 12}.get(step, step + 12)
        kept = [n for n, i in enumerate(index) if i % step == 0]
        return kept, [labels[n][:4] if step >= 12 else labels[n] for n in kept]
    step = math.ceil(len(labels) / max_ticks)
    kept = list(range(0, len(labels), step))
    return kept, [labels[n] for n in kept]


@functools.cache
def _matplotlib():
    """``(Figure, FuncFormatter)``, matplotlib imported and set up on the first chart drawn.

    Not at import: matplotlib takes about 0.7 s to import, and this module is imported by
    the URLconf, so every process of the shop (each ``manage.py`` command, each gunicorn
    worker) would pay it, though only the staff dashboard draws charts."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "shop-analytics"  # the same figures give the same SVG
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text, not paths
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    return Figure, FuncFormatter


def revenue_and_units_svg(labels, revenue_cents, units, title):
    """Two bar charts, revenue (dollars) above units, over ``labels``; returns an ``<svg>`` string.

    ``labels``: strings (years, month names, days); ``revenue_cents`` and
    ``units``: ints, one per label; the labels written are thinned to fit
    (``thinned_ticks``). The SVG carries ``role="img"`` and an
    ``aria-label`` naming ``title``; the page shows the same figures in a table.
    """
    Figure, FuncFormatter = _matplotlib()
    figure = Figure(figsize=(8, 4.2), layout="constrained")
    revenue_axes, units_axes = figure.subplots(2, 1, sharex=True)
    positions = range(len(labels))
    revenue_axes.bar(positions, [c / 100 for c in revenue_cents], color=REVENUE_COLOUR)
    revenue_axes.set_ylabel("Revenue")
    revenue_axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"${v:,.0f}"))
    revenue_axes.set_title(title, loc="left", fontsize=11)
    units_axes.bar(positions, units, color=UNITS_COLOUR)
    units_axes.set_ylabel("Units")
    units_axes.yaxis.get_major_locator().set_params(integer=True)
    ticks, tick_labels = thinned_ticks(labels)
    units_axes.set_xticks(ticks, tick_labels, fontsize=8)
    for axes in (revenue_axes, units_axes):
        axes.spines[["top", "right"]].set_visible(False)
        axes.grid(axis="y", linewidth=0.4, alpha=0.6)
        axes.set_axisbelow(True)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    label = title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return svg.replace("<svg", f'<svg role="img" aria-label="{label}"', 1)


def daily_monthly_or_yearly_bars(period, buckets):
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
                     "mean": bucket.get("mean", 0), "discounts": bucket.get("discounts", 0)})
    return bars


def every_month_bars(buckets):
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
                     **{m: bucket.get(m, 0) for m in ("total", "units", "count", "mean", "discounts")}})
        month = period_end("month", month)
    return bars


def chart_svg(bars, title):
    """The revenue and units chart of ``bars`` (as the two functions above make them) as inline
    SVG markup, safe to put in a page (``revenue_and_units_svg``)."""
    return mark_safe(revenue_and_units_svg(  # noqa: S308  # nosec
        [b["label"] for b in bars], [b["total"] for b in bars], [b["units"] for b in bars], title))
