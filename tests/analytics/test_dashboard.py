"""The staff dashboard and reports: staff only, charts as SVG, drill-down, top lists, funnel,
reports with the Russian article on MongoDB's aggregation operators; they read the rollups, never the raw events."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from analytics.models import DailyStat, Event, MonthlyStat
from catalog.products.report_manager import compare
from catalog.models import Product
from core.mongo import get_collection
from core.mongo.counter import count_operations
from tests.support.sales import at

UTC = datetime.UTC


def test_the_dashboard_is_for_staff_only(client, sales):
    response = client.get("/admin/analytics/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    shopper = get_user_model().objects.create_user("shopper", password="pw")
    client.force_login(shopper)
    assert client.get("/admin/analytics/").status_code == 302


def test_all_time_shows_years_charts_top_lists_and_funnel(staff_client, sales):
    response = staff_client.get("/admin/analytics/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<svg role="img"') == 2  # by year, and by month
    assert 'aria-label="Revenue and units by year"' in html
    assert [(b["label"], b["total"], b["units"]) for b in response.context["bars"]] == [
        ("2023", 4449, 4), ("2024", 1800, 4)]
    assert 'href="?year=2023"' in html
    top = response.context["top_products"]
    assert [(r["ref"], r["name"], r["total"], r["units"]) for r in top] == [
        ("C", "Album C", 2250, 5), ("A", "Album A", 2000, 2), ("B", "Album B", 1999, 1)]
    categories = [(r["name"], r["total"]) for r in response.context["top_categories"]]
    assert categories == [("Music", 6249), ("Rock", 3999), ("Jazz", 2250), ("Metal", 2000)]
    funnel = response.context["funnel"]  # the fixture's sales are imported: they stay out
    assert [s.value for s in funnel.steps] == [8, 2, 0]
    assert funnel.steps[1].from_previous.percent == 25.0 and funnel.steps[2].from_previous.percent == 0.0
    assert funnel.imported == 4


def test_drill_down_from_a_year_to_its_months_to_its_days(staff_client, sales):
    year = staff_client.get("/admin/analytics/?year=2023")
    assert year.status_code == 200
    months = year.context["bars"]
    assert len(months) == 12
    assert [(b["label"], b["total"]) for b in months if b["total"]] == [("Mar", 4449)]
    assert 'href="?year=2023&amp;month=3"' in year.content.decode()
    assert [r["ref"] for r in year.context["top_products"]] == ["A", "B", "C"]

    month = staff_client.get("/admin/analytics/?year=2023&month=3")
    days = month.context["bars"]
    assert len(days) == 31
    assert [(b["label"], b["total"], b["units"]) for b in days if b["total"]] == [("6", 2000, 2), ("7", 2449, 2)]
    assert month.content.decode().count('<svg role="img"') == 1
    assert month.context["totals"]["total"] == 4449


def test_a_year_without_sales_shows_empty_months(staff_client, sales):
    response = staff_client.get("/admin/analytics/?year=2030")
    assert response.status_code == 200
    assert sum(b["total"] for b in response.context["bars"]) == 0
    assert response.context["top_products"] == []


@pytest.mark.parametrize("query", ["?year=abc", "?year=2023&month=13", "?month=3", "?year=0"])
def test_a_bad_period_is_a_400(staff_client, query):
    assert staff_client.get(f"/admin/analytics/{query}").status_code == 400


def test_the_dashboard_reads_the_rollups_not_the_events(staff_client, sales):
    with count_operations() as ops:
        staff_client.get("/admin/analytics/?year=2023")
    assert "events" not in {collection for collection, _op in ops.operations}, ops.operations


def test_the_admin_index_leads_to_the_dashboard(staff_client, sales):
    get_user_model().objects.filter(username="staff").update(is_superuser=True)
    html = staff_client.get("/admin/").content.decode()
    assert 'href="/admin/analytics/"' in html
    assert staff_client.get("/admin/analytics/event/").status_code == 200


def test_reports_use_seed_004_operators(staff_client, sales, settings):
    settings.ANALYTICS_TAX_PERCENT = 10
    response = staff_client.get("/admin/analytics/reports/?year=2023")
    assert response.status_code == 200
    bands = {b["band"]: (b["products"], b["discounted"]) for b in response.context["price_bands"]}
    assert bands == {"under $5": (1, 1), "$5 to $9.99": (1, 1), "$10 to $19.99": (1, 1), "$20 and over": (0, 0)}
    assert response.context["missing_count"] == 1
    assert [p["sku"] for p in response.context["missing"]] == ["B"]
    assert [(r["d"], r["net"], r["tax"], r["gross"]) for r in response.context["with_tax"]] == [
        (at(2023, 3, 1), 4449, 445, 4894)]
    weekdays = {r["weekday"]: (r["total"], r["count"]) for r in response.context["weekdays"]}
    assert weekdays["Monday"] == (2000, 1) and weekdays["Tuesday"] == (2449, 2)
    assert response.context["weekdays"][0]["weekday"] == "Monday"


def test_weekday_report_over_all_time(sales):
    rows = {r["weekday"]: r["total"] for r in DailyStat.reports.sales_by_weekday()}
    assert rows["Monday"] == 3800 and rows["Sunday"] == 0


def test_missing_descriptions_counts_missing_and_null_fields(sales):
    get_collection("products").update_one({"sku": "A"}, {"$unset": {"description": ""}})
    get_collection("products").update_one({"sku": "C"}, {"$set": {"description": None}})
    count, rows = Product.reports.missing_descriptions(limit=2)
    assert count == 3 and [r["sku"] for r in rows] == ["A", "B"]


def test_tax_rate_outside_0_to_100_is_refused():
    with pytest.raises(ValueError):
        MonthlyStat.reports.totals_with_tax(at(2023, 1, 1), at(2024, 1, 1), 101)


def test_compare_gives_cmp_answers():
    get_collection("cmp_probe").insert_many([{"a": 1, "b": 2}, {"a": 2, "b": 2}, {"a": 3, "b": 2}])
    try:
        rows = get_collection("cmp_probe").aggregate(
            [{"$project": {"_id": 0, "a": 1, "c": compare("$a", "$b")}}, {"$sort": {"a": 1}}])
        assert [r["c"] for r in rows] == [-1, 0, 1]
    finally:
        get_collection("cmp_probe").drop()


def test_staff_can_roll_up_the_latest_events_from_the_dashboard(staff_client, sales):
    Event.objects.import_sales([{"ref": "t:new", "sku": "A", "qty": 1, "amount": 1000, "ts": at(2024, 1, 1, 9)}], "t:")
    assert staff_client.get("/admin/analytics/rollup/").status_code == 405
    response = staff_client.post("/admin/analytics/rollup/", follow=True)
    assert response.redirect_chain[-1][0] == "/admin/analytics/"
    assert "1 hour recomputed" in response.content.decode()
    assert [(b["label"], b["total"]) for b in response.context["bars"]] == [("2023", 4449), ("2024", 2800)]


def test_reports_follow_the_period_chosen_and_name_it(staff_client, sales):
    """All time covers every month (it used to say "All time" over the latest year only)."""
    everything = staff_client.get("/admin/analytics/reports/")
    assert [(r["d"], r["net"]) for r in everything.context["with_tax"]] == [(at(2023, 3, 1), 4449), (at(2024, 1, 1), 1800)]
    html = everything.content.decode()
    assert "Monthly revenue with 20% tax, All time</h2>" in html and "Sales by weekday, All time</h2>" in html
    assert dict((r["weekday"], r["total"]) for r in everything.context["weekdays"])["Monday"] == 3800

    year = staff_client.get("/admin/analytics/reports/?year=2024")
    assert [r["net"] for r in year.context["with_tax"]] == [1800]
    assert dict((r["weekday"], r["total"]) for r in year.context["weekdays"])["Monday"] == 1800
    assert "Monthly revenue with 20% tax, 2024</h2>" in year.content.decode()

    month = staff_client.get("/admin/analytics/reports/?year=2023&month=3")
    assert [r["net"] for r in month.context["with_tax"]] == [4449]
    assert "Sales by weekday, March 2023</h2>" in month.content.decode()
    empty = staff_client.get("/admin/analytics/reports/?year=2023&month=4")
    assert empty.context["with_tax"] == [] and "No sales in April 2023." in empty.content.decode()
    assert staff_client.get("/admin/analytics/reports/?month=4").status_code == 400
