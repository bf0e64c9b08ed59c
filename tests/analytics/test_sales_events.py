"""Sale events: the Chinook import (load_sales), the checkout's signal, views and add-to-cart."""

import datetime
import sqlite3
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import Client

from analytics.models import Event, RollupProgress
from analytics.receivers import shopper_id
from inventory.models import Cart
from inventory.signals import line_added
from orders.signals import order_placed as order_completed
from core.mongo import get_collection

UTC = datetime.UTC


def invoice_totals_by_year():
    """{year: cents} summed from the Chinook file's invoice lines, independently of the shop's code."""
    connection = sqlite3.connect(settings.CHINOOK_DATABASE)
    try:
        rows = connection.execute(
            "SELECT strftime('%Y', i.InvoiceDate), SUM(CAST(ROUND(il.UnitPrice * 100) AS INTEGER) * il.Quantity),"
            " COUNT(*) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId GROUP BY 1"
        ).fetchall()
        invoices = dict(connection.execute(
            "SELECT strftime('%Y', InvoiceDate), CAST(ROUND(SUM(Total) * 100) AS INTEGER) FROM Invoice GROUP BY 1"
        ).fetchall())
    finally:
        connection.close()
    lines = {int(year): (cents, count) for year, cents, count in rows}
    assert {int(y): c for y, c in invoices.items()} == {y: c for y, (c, _n) in lines.items()}
    return lines


def run(command, *args):
    out = StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def chinook_sales(chinook):
    run("load_sales")
    run("rollup_stats", "--lag", "0")


def test_load_sales_imports_every_invoice_line_once(chinook):
    assert "2240 imported, 0 already there" in run("load_sales")
    assert "0 imported, 2240 already there" in run("load_sales")
    assert Event.objects.count() == 2240
    line = get_collection("events").find_one({"ref": "chinook:line:1"})
    # Invoice line 1: track 2 of album 2, $0.99 x 1, invoice 1 of customer 2 on 2021-01-01.
    assert (line["type"], line["sku"], line["qty"], line["amount"]) == ("sale", "CHK-0002", 1, 99)
    assert line["userid"] == "leonekohler@surfeu.de"
    assert line["ts"].replace(tzinfo=UTC) == datetime.datetime(2021, 1, 1, tzinfo=UTC)


def test_load_sales_refuses_a_file_that_is_not_chinook(tmp_path):
    bad = tmp_path / "empty.sqlite"
    sqlite3.connect(bad).close()
    with pytest.raises(CommandError, match="Cannot read the Chinook database"):
        call_command("load_sales", "--file", str(bad))
    assert Event.objects.count() == 0


def test_the_chinook_sales_rolled_up_equal_the_invoices_once_on_the_dashboard(client, chinook_sales):
    """One test for the three checks of the rolled-up Chinook sales (loading and rolling
    them up takes about 20 s of the local server's time)."""
    from tests.support.sales import analyst

    # Each year's revenue equals its invoices, and the months add up to the same.
    expected = invoice_totals_by_year()
    assert sorted(expected) == [2021, 2022, 2023, 2024, 2025]
    yearly = RollupProgress.objects.buckets("yearly")
    assert {b["d"].year: (b["total"], b["count"]) for b in yearly} == expected
    monthly = RollupProgress.objects.buckets("monthly")
    assert sum(b["total"] for b in monthly) == sum(c for c, _n in expected.values())

    # The dashboard shows each year's invoices.
    client.force_login(analyst())
    response = client.get("/admin/analytics/")
    assert [(int(b["label"]), b["total"]) for b in response.context["bars"]] == [
        (year, cents) for year, (cents, _count) in sorted(expected.items())]
    html = response.content.decode()
    assert all(f'href="?year={year}"' in html for year in expected)
    # The imported invoices stay out of the funnel ("Sales 2246: 22460.0 %" before).
    funnel = response.context["funnel"]
    assert funnel.imported == 2240 and funnel.steps[-1].value == 0
    assert "2240 imported sale lines in this period" in html

    # A second rollup changes nothing.
    before = sorted(get_collection("stats.monthly").find(), key=lambda d: d["_id"])
    assert "0 hours touched" in run("rollup_stats", "--lag", "0")
    assert sorted(get_collection("stats.monthly").find(), key=lambda d: d["_id"]) == before


def test_rollup_stats_refuses_a_negative_lag():
    with pytest.raises(CommandError, match="--lag"):
        call_command("rollup_stats", "--lag", "-1")


@pytest.fixture
def without_confirmation_mail():
    """These tests send the signal without an order: leave the order confirmation e-mail out."""
    from orders.emails import send_order_confirmation

    order_completed.disconnect(dispatch_uid="orders.send_order_confirmation")
    yield
    order_completed.connect(send_order_confirmation, dispatch_uid="orders.send_order_confirmation")


def test_the_checkout_signal_records_one_sale_per_line_once(without_confirmation_mail):
    completed = datetime.datetime(2026, 3, 4, 5, 6, tzinfo=UTC)
    kwargs = dict(
        cart_id="cart-1", customer="ann@example.com", session_key="s1", completed_at=completed,
        lines=[{"sku": "CHK-0001", "qty": 2, "price": 799}, {"sku": "CHK-0002", "qty": 1, "price": 99}],
    )
    order_completed.send(sender=None, **kwargs)
    order_completed.send(sender=None, **kwargs)  # delivered twice: still one event per line
    events = sorted(get_collection("events").find({"type": "sale"}), key=lambda e: e["sku"])
    assert [(e["sku"], e["qty"], e["amount"], e["userid"]) for e in events] == [
        ("CHK-0001", 2, 1598, "ann@example.com"), ("CHK-0002", 1, 99, "ann@example.com")]
    assert events[0]["ts"].replace(tzinfo=UTC) == completed


def test_an_anonymous_order_is_recorded_under_its_session(without_confirmation_mail):
    order_completed.send(sender=None, cart_id="c2", customer="", session_key="abc",
                         completed_at=datetime.datetime.now(UTC),
                         lines=[{"sku": "X", "qty": 1, "price": 100}])
    userid = get_collection("events").find_one({"type": "sale"})["userid"]
    # A keyed hash of the session key, never the key itself (staff see userid in the admin).
    assert userid.startswith("guest:") and len(userid) == 38 and "abc" not in userid
    assert userid == shopper_id("", "abc") != shopper_id("", "abd")


def test_a_product_page_records_one_view(chinook):
    assert Client().get("/p/CHK-0001/").status_code == 200
    views = list(get_collection("events").find({"type": "view"}))
    assert [(v["sku"], v["qty"], v["amount"]) for v in views] == [("CHK-0001", 1, 0)]


def test_an_unknown_product_records_no_view(chinook):
    assert Client().get("/p/NOPE/").status_code == 404
    assert get_collection("events").count_documents({}) == 0


def test_the_line_added_signal_records_an_add_to_cart_event(rf):
    request = rf.get("/")
    line_added.send(sender=Cart, cart_id="c1", sku="CHK-0001", qty=2, request=request)
    event = get_collection("events").find_one({"type": "cart"})
    assert (event["sku"], event["qty"]) == ("CHK-0001", 2)
    with pytest.raises(ValueError):
        line_added.send(sender=Cart, cart_id="c1", sku="CHK-0001", qty=0, request=request)
    assert get_collection("events").count_documents({}) == 1


def test_adding_to_the_cart_records_one_cart_event(client, chinook):
    from inventory.models import Inventory

    Inventory.objects.set_stock("CHK-0001", 5)
    client.post("/cart/add/", {"sku": "CHK-0001", "qty": 2})
    client.post("/cart/add/", {"sku": "CHK-0001", "qty": 0})  # refused: nothing recorded
    client.post("/cart/add/", {"sku": "CHK-0001", "qty": 9})  # more than the stock: nothing recorded
    events = list(get_collection("events").find({"type": "cart"}))
    assert [(e["sku"], e["qty"]) for e in events] == [("CHK-0001", 2)]
