"""export_orders and the admin's CSV download: orders for the accountants."""

import csv
import datetime
from io import StringIO

import pytest
from bson import ObjectId
from django.core.management import CommandError, call_command

from orders.models import Order

UTC = datetime.UTC


def make_order(number, placed_at, refunds=(), status="paid", **extra):
    return Order.objects.insert_order({**extra,
        "_id": ObjectId(), "number": number, "status": status, "placed_at": placed_at, "cart_id": f"cart-{number}",
        "user_id": "", "name": "Ada", "email": f"{number.lower()}@example.com",
        "lines": [{"sku": "A", "title": "Album A", "qty": 2, "price": 999, "weight": 0},
                  {"sku": "B", "title": "Album B", "qty": 1, "price": 450, "weight": 0}],
        "address": None, "subtotal": 2448, "shipping": 500, "tax": 0, "total": 2948,
        "payment": {"reference": f"pi_{number}", "brand": "visa", "last4": "4242"},
        "history": [], "restocked": False, "refunds": list(refunds), "refunded": sum(r["amount"] for r in refunds),
        **extra})


@pytest.fixture
def orders():
    refund = {"request": "k1", "refund_id": "re_1", "amount": 500, "by": "staff",
              "at": datetime.datetime(2026, 2, 3, 9, 30, tzinfo=UTC), "reason": "", "status": "succeeded"}
    return [make_order("A-0001", datetime.datetime(2026, 1, 5, 23, 59, 30, tzinfo=UTC)),
            make_order("A-0002", datetime.datetime(2026, 2, 1, 0, 0, tzinfo=UTC), [refund], "refunded"),
            make_order("A-0003", datetime.datetime(2026, 3, 1, 12, 0, tzinfo=UTC))]


def export(*args):
    out = StringIO()
    call_command("export_orders", *args, stdout=out)
    return list(csv.DictReader(StringIO(out.getvalue())))


def test_orders_of_a_period_in_dollars_and_utc(orders):
    rows = export("--since", "2026-01-01", "--until", "2026-03-01")
    assert [r["number"] for r in rows] == ["A-0001", "A-0002"]
    first, second = rows
    assert first == {"number": "A-0001", "placed_at": "2026-01-05T23:59:30Z", "email": "a-0001@example.com",
                     "lines": "A x 2 @ 9.99; B x 1 @ 4.50", "subtotal": "24.48", "shipping": "5.00", "tax": "0.00",
                     "total": "29.48", "refunded": "0.00", "status": "paid", "payment_intent": "pi_A-0001",
                     "refunds": "", "discount": "0.00", "codes": "", "line_discounts": "", "gift_card": "0.00"}
    assert second["refunds"] == "re_1 5.00 2026-02-03T09:30:00Z succeeded" and second["refunded"] == "5.00"
    assert len(export()) == 3


def test_the_discount_columns_give_the_codes_and_each_lines_share():
    make_order("A-0009", datetime.datetime(2026, 4, 1, tzinfo=UTC), discount=700, gift_card=1000,
               discounts=[{"code": "SUMMER10", "name": "Summer", "kind": "percent", "amount": 245},
                          {"code": "", "name": "=3 for 2", "kind": "multibuy", "amount": 455}],
               lines=[{"sku": "A", "title": "Album A", "qty": 2, "price": 999, "weight": 0, "discount": 565},
                      {"sku": "B", "title": "Album B", "qty": 1, "price": 450, "weight": 0, "discount": 135}])
    (row,) = export("--since", "2026-04-01")
    assert row["discount"] == "7.00" and row["gift_card"] == "10.00"
    assert row["codes"] == "SUMMER10 Summer 2.45; '=3 for 2 4.55"  # a formula-like name is quoted
    assert row["line_discounts"] == "A 5.65; B 1.35"


def test_bad_dates_are_a_one_line_error(orders):
    with pytest.raises(CommandError, match="--since takes a date"):
        export("--since", "yesterday")
    with pytest.raises(CommandError, match="--until must come after --since"):
        export("--since", "2026-02-01", "--until", "2026-01-01")


def test_the_admin_downloads_the_selected_orders(admin_client, orders):
    selected = [str(orders[0].pk), str(orders[2].pk)]
    response = admin_client.post("/admin/orders/order/", {"action": "export_csv", "_selected_action": selected})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(StringIO(response.content.decode())))
    assert [r["number"] for r in rows] == ["A-0001", "A-0003"]


def test_an_email_a_spreadsheet_would_run_is_quoted(orders):
    Order.objects.collection.update_one({"number": "A-0001"}, {"$set": {"email": "=1+2@example.com"}})
    assert export()[0]["email"] == "'=1+2@example.com"
