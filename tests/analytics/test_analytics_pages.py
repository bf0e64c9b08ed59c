"""Findable, readable analytics pages: breadcrumbs and titles name the page, the
dashboard and the reports link to each other, the admin index lists both under "Analytics",
chart labels thinned to fit and every chart with its table of figures."""

import re

import pytest
from django.contrib.auth import get_user_model

from analytics.charts import revenue_and_units_svg, thinned_ticks
from tests.support.sales import analyst


def crumbs(response):
    html = response.content.decode()
    block = re.search(r'<div class="breadcrumbs">(.*?)</div>', html, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", "", block).replace("&rsaquo;", "›").split())


def title(response):
    return re.search(r"<title>(.*?)</title>", response.content.decode(), re.S).group(1).split("|")[0].strip()


@pytest.mark.parametrize("query, trail, name", [
    ("", "Home › Sales dashboard", "Sales dashboard: All time"),
    ("?year=2023", "Home › Sales dashboard › 2023", "Sales dashboard: 2023"),
    ("?year=2023&month=3", "Home › Sales dashboard › 2023 › March 2023", "Sales dashboard: March 2023"),
])
def test_the_dashboard_names_the_page_and_links_to_the_reports_of_its_period(staff_client, sales, query, trail, name):
    response = staff_client.get(f"/admin/analytics/{query}")
    assert crumbs(response) == trail and title(response) == name
    assert f'<h1>{name}</h1>' in response.content.decode()
    assert f'href="/admin/analytics/reports/{query.replace("&", "&amp;")}" id="reports-link"' in response.content.decode()


@pytest.mark.parametrize("query, label", [("", "All time"), ("?year=2023", "2023"), ("?year=2023&month=3", "March 2023")])
def test_the_reports_name_the_page_and_link_back_to_the_dashboard(staff_client, sales, query, label):
    response = staff_client.get(f"/admin/analytics/reports/{query}")
    assert crumbs(response) == f"Home › Sales dashboard › Sales reports, {label}"
    assert title(response) == f"Sales reports: {label}"
    html = response.content.decode()
    assert f'href="/admin/analytics/{query.replace("&", "&amp;")}" id="dashboard-link"' in html
    # Every year with sales can be chosen.
    assert 'href="?year=2023"' in html or "<strong>2023</strong>" in html
    assert 'href="?year=2024"' in html


@pytest.mark.parametrize("superuser", [True, False])
def test_the_admin_index_lists_the_dashboard_and_the_reports_under_analytics(client, superuser):
    user = analyst()
    user.is_superuser = superuser
    user.save()
    client.force_login(user)
    html = client.get("/admin/").content.decode()
    box = re.search(r'<div class="app-analytics module.*?</table>', html, re.S).group(0)
    assert '<a href="/admin/analytics/" class="section"' in box
    assert '<a href="/admin/analytics/">Sales dashboard</a>' in box
    assert '<a href="/admin/analytics/reports/">Sales reports</a>' in box
    assert ("Events" in box) is superuser  # the models only for who may see them


def test_staff_without_the_permission_neither_see_nor_open_the_pages(client):
    client.force_login(get_user_model().objects.create_user("clerk", password="pw", is_staff=True))
    assert "Sales dashboard" not in client.get("/admin/").content.decode()
    for url in ("/admin/analytics/", "/admin/analytics/reports/"):
        assert client.get(url).status_code == 403
    assert client.post("/admin/analytics/rollup/").status_code == 403


def test_viewing_the_dashboard_does_not_allow_a_rollup(client):
    client.force_login(analyst("viewer", roll_up=False))
    assert client.get("/admin/analytics/").status_code == 200
    assert client.post("/admin/analytics/rollup/").status_code == 403


def test_month_labels_are_thinned_to_quarters_half_years_or_years():
    months = [f"{y}-{m:02d}" for y in range(2021, 2026) for m in range(1, 13)]
    assert thinned_ticks(months[:12]) == (list(range(12)), months[:12])
    assert thinned_ticks(months[:24])[1] == ["2021-01", "2021-04", "2021-07", "2021-10",
                                             "2022-01", "2022-04", "2022-07", "2022-10"]
    positions, labels = thinned_ticks(months)  # the Chinook sales: 60 months
    assert labels == ["2021-01", "2021-07", "2022-01", "2022-07", "2023-01", "2023-07",
                      "2024-01", "2024-07", "2025-01", "2025-07"]
    assert positions == list(range(0, 60, 6))
    decades = [f"{y}-{m:02d}" for y in range(2000, 2025) for m in range(1, 13)]
    assert thinned_ticks(decades)[1] == [str(y) for y in range(2001, 2025, 3)]  # years divisible by 3
    assert thinned_ticks([str(d) for d in range(1, 32)])[1] == [str(d) for d in range(1, 32, 3)]


def test_the_chart_writes_only_the_thinned_labels():
    months = [f"{y}-{m:02d}" for y in range(2021, 2026) for m in range(1, 13)]
    svg = revenue_and_units_svg(months, [100] * 60, [1] * 60, "Revenue and units by month")
    assert ">2021-07<" in svg and ">2021-02<" not in svg
    assert svg.count("<text") <= 12 + 12  # the month labels and the axes' own


def test_every_chart_keeps_its_table_of_figures(staff_client, sales):
    html = staff_client.get("/admin/analytics/").content.decode()
    assert html.count('<svg role="img"') == 2
    assert '<table id="figures">' in html and '<table id="month-figures">' in html
    months = re.search(r'<table id="month-figures">(.*?)</table>', html, re.S).group(1)
    assert "2023-03" in months and "2024-01" in months and "$44.49" in months
    # Every month between the first and the last with sales has its bar (the axis keeps time).
    assert months.count("<tr>") == 1 + 11  # the heading, March 2023 to January 2024
    for query in ("?year=2023", "?year=2023&month=3"):
        html = staff_client.get(f"/admin/analytics/{query}").content.decode()
        assert html.count('<svg role="img"') == 1 and html.count('<table id="figures">') == 1

