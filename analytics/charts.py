"""Charts of the staff dashboard, drawn on the server with matplotlib as inline SVG.

SVG needs no JavaScript to read, scales with the page, and is text (the
figures' labels stay selectable). Only ``Figure`` objects are used, never
pyplot, so no global state is shared between requests.
"""

import io

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "shop-analytics"  # the same figures give the same SVG
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text, not paths

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

REVENUE_COLOUR = "#417690"  # the admin's header blue
UNITS_COLOUR = "#79aec8"


def revenue_and_units_svg(labels, revenue_cents, units, title):
    """Two bar charts, revenue (dollars) above units, over ``labels``; returns an ``<svg>`` string.

    ``labels``: strings (years, month names, days); ``revenue_cents`` and
    ``units``: ints, one per label. The SVG carries ``role="img"`` and an
    ``aria-label`` naming ``title``; the page shows the same figures in a table.
    """
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
    units_axes.set_xticks(list(positions), labels, rotation=90 if len(labels) > 14 else 0, fontsize=8)
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
