"""The dashboard's funnel, product views -> add to cart -> sales, over the sales it can explain.

A sale imported with ``load_sales`` (Chinook's invoice history) has no
product view or add-to-cart event behind it: counted in the funnel, 2,240
imported sales over a handful of live views read "22460 % of the step
before". So the funnel's sales are the rollups' ``live_count``, the lines
sold through the shop's own checkout; the imported lines of the period are
counted apart and the page says they stay out. A ratio is shown only where
it means something: never above 100 %, never over zero; otherwise the step
says why it has none.
"""

from dataclasses import dataclass, field

#: (rollup measure, the step's name, what it counts: for the reasons a ratio is missing)
STEPS = [
    ("views", "Product views", "product views"),
    ("carts", "Add to cart", "add-to-cart events"),
    ("live_count", "Sales (lines sold in the shop)", "sale lines"),
]


@dataclass(frozen=True)
class Ratio:
    """A conversion in percent (one decimal), or None with ``why`` saying why there is none."""

    percent: float | None
    why: str = ""


@dataclass(frozen=True)
class Step:
    """One step: its ``name``, ``value`` (a count), and its ``from_previous`` and ``from_first``
    ``Ratio`` (None for the first step)."""

    name: str
    value: int
    from_previous: Ratio | None = None
    from_first: Ratio | None = None


@dataclass(frozen=True)
class Funnel:
    """The steps of a period, and ``imported``: the period's imported sale lines, left out."""

    steps: list = field(default_factory=list)
    imported: int = 0


def ratio(value, base, noun, base_noun):
    """``value`` as a share of ``base`` (``noun`` and ``base_noun`` say what they count, for the reason).

    Returns ``Ratio(percent)`` for ``0 < base`` and ``value <= base``;
    otherwise ``Ratio(None, why)``: nothing at the step before, or more at
    this step than at that one (a step whose step before fell in an earlier
    period, e.g. a product viewed on the last day of a month and bought on
    the first of the next), where a share above 100 % would mean nothing.
    """
    if base <= 0:
        return Ratio(None, f"no {base_noun} in this period")
    if value > base:
        return Ratio(None, f"more {noun} than {base_noun} in this period "
                           "(some follow steps taken before it began)")
    return Ratio(round(100 * value / base, 1))


def funnel(totals):
    """The funnel of a period from its rollup ``totals`` (``RollupManager.totals``).

    ``totals``: ``{views, carts, count, live_count, ...}``. Returns a
    ``Funnel``: views, add-to-cart events and live sale lines, each step with
    its conversion from the step before and from the first step; ``imported``
    = ``count - live_count``, the imported lines left out.
    """
    values = [int(totals.get(key, 0)) for key, _name, _noun in STEPS]
    steps = [Step(STEPS[0][1], values[0])]
    for number in range(1, len(STEPS)):
        _key, name, noun = STEPS[number]
        steps.append(Step(
            name, values[number],
            from_previous=ratio(values[number], values[number - 1], noun, STEPS[number - 1][2]),
            from_first=ratio(values[number], values[0], noun, STEPS[0][2]),
        ))
    imported = int(totals.get("count", 0)) - int(totals.get("live_count", 0))
    return Funnel(steps, max(imported, 0))
