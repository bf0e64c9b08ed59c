"""The dashboard's funnel adds up: imported history (load_sales) stays out, and is said to; each
step converts from the step before and from the first; no ratio above 100 %, and a step without a
meaningful ratio says why."""

import datetime

import pytest

from analytics.funnel import funnel
from analytics.models import Event, RollupProgress
from catalog.models import Pricing, Product
from core.mongo import get_collection
from tests.support.sales import analyst

UTC = datetime.UTC


def at(*parts):
    return datetime.datetime(*parts, tzinfo=UTC)


def imported(*sales):
    """Historical sales as load_sales writes them (a ``chinook:line:`` ref each)."""
    Event.objects.import_sales(
        [{"ref": f"chinook:line:{ts:%m%d%H}{n}", "sku": sku, "qty": 1, "amount": 1000, "ts": ts}
         for n, (ts, sku) in enumerate(sales)], "chinook:line:")


def shopped(sku, views, carts, orders, ts):
    """What shoppers did in the shop: ``views`` product views, ``carts`` adds, ``orders`` one-line orders."""
    Event.objects.insert_generated(
        [{"type": "view", "sku": sku, "qty": 1, "amount": 0, "userid": "", "ts": ts} for _ in range(views)]
        + [{"type": "cart", "sku": sku, "qty": 1, "amount": 0, "userid": "", "ts": ts} for _ in range(carts)])
    for n in range(orders):
        Event.objects.record_order(f"cart-{sku}-{ts:%m%d}-{n}", [{"sku": sku, "qty": 1, "price": 999}],
                                   userid="x@example.com", ts=ts)


@pytest.fixture
def periods(make_tree):
    """March 2023: imported sales only; April: live events only; May: both; June: more adds than views."""
    tree = make_tree({"Music": {}})
    for sku in "AB":
        Product.objects.create(sku=sku, type="Audio Album", title=f"Album {sku}",
                               categories=[tree["Music"].pk], pricing=Pricing.from_prices(1000, 999))
    imported((at(2023, 3, 2, 10), "A"), (at(2023, 3, 9, 10), "B"), (at(2023, 3, 9, 11), "A"))
    shopped("A", views=10, carts=4, orders=2, ts=at(2023, 4, 5, 12))
    imported(*[(at(2023, 5, 1 + n, 9), "B") for n in range(5)])
    shopped("B", views=4, carts=2, orders=1, ts=at(2023, 5, 20, 15))
    shopped("A", views=1, carts=3, orders=0, ts=at(2023, 6, 30, 23))
    RollupProgress.objects.rollup()


@pytest.fixture
def staff_client(client):
    client.force_login(analyst())
    return client


def steps(response):
    return [(s.value, s.from_previous and s.from_previous.percent, s.from_first and s.from_first.percent)
            for s in response.context["funnel"].steps]


def test_a_period_with_only_imported_sales_has_no_funnel_sales_and_says_why(staff_client, periods):
    response = staff_client.get("/admin/analytics/?year=2023&month=3")
    assert response.context["totals"]["count"] == 3  # the revenue still counts them
    assert steps(response) == [(0, None, None), (0, None, None), (0, None, None)]
    assert response.context["funnel"].imported == 3
    html = response.content.decode()
    assert "3 imported sale lines in this period" in html and "stay out of it" in html
    assert "No ratio: no product views in this period." in html
    assert "No ratio: no add-to-cart events in this period." in html


def test_a_period_with_only_live_events_converts_step_by_step(staff_client, periods):
    response = staff_client.get("/admin/analytics/?year=2023&month=4")
    assert steps(response) == [(10, None, None), (4, 40.0, 40.0), (2, 50.0, 20.0)]
    assert response.context["funnel"].imported == 0
    html = response.content.decode()
    assert "40.0 %" in html and "20.0 %" in html and "No ratio" not in html
    assert "Imported sales (the history loaded with <code>load_sales</code>) stay out of it" in html


def test_a_period_with_both_counts_only_the_live_sales(staff_client, periods):
    response = staff_client.get("/admin/analytics/?year=2023&month=5")
    assert response.context["totals"]["count"] == 6
    assert steps(response) == [(4, None, None), (2, 50.0, 50.0), (1, 50.0, 25.0)]
    assert response.context["funnel"].imported == 5
    year = staff_client.get("/admin/analytics/?year=2023")
    assert steps(year)[0][0] == 15 and [s.value for s in year.context["funnel"].steps] == [15, 9, 3]
    assert year.context["funnel"].imported == 8


def test_no_ratio_goes_above_100_percent(staff_client, periods):
    response = staff_client.get("/admin/analytics/?year=2023&month=6")
    adds = response.context["funnel"].steps[1]
    assert (adds.value, adds.from_previous.percent) == (3, None)
    assert "more add-to-cart events than product views" in adds.from_previous.why
    for query in ["", "?year=2023", "?year=2023&month=4", "?year=2023&month=5", "?year=2023&month=6"]:
        for step in staff_client.get(f"/admin/analytics/{query}").context["funnel"].steps[1:]:
            for share in (step.from_previous, step.from_first):
                assert share.percent is None or 0 <= share.percent <= 100
                assert share.percent is not None or share.why


def test_only_imported_sales_are_left_out_of_the_live_count(periods):
    """live_count: order lines and sales without a ref; imported lines (a ref of another kind) not."""
    Event.objects.insert_generated([{"type": "sale", "sku": "A", "qty": 1, "amount": 500, "userid": "",
                                     "ts": at(2023, 7, 1, 10)}])
    RollupProgress.objects.rollup()
    july = get_collection("stats.monthly").find_one({"k": "store", "d": at(2023, 7, 1)})
    assert (july["count"], july["live_count"]) == (1, 1)
    sku_a = RollupProgress.objects.totals("yearly", at(2023, 1, 1), at(2024, 1, 1), key="sku:A")
    assert (sku_a["count"], sku_a["live_count"]) == (5, 3)  # 2 imported, 2 orders, 1 without ref


def test_the_funnel_of_totals_without_live_count_leaves_every_sale_out():
    """Buckets written before live_count existed read as imported history, never as 100+ %."""
    result = funnel({"views": 3, "carts": 1, "count": 40})
    assert [s.value for s in result.steps] == [3, 1, 0] and result.imported == 40
