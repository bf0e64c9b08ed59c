"""The staff side fed hostile values: number fields bounded with form errors (a huge stock or
weight was a 500: MongoDB's integers are 64-bit), and every change list's search box, filters and
URL lookups answer a 4xx or the page, bounded, changing nothing."""

import time

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client

from catalog.models import Product
from inventory.models import Inventory
from tests.security.conftest import HOSTILE_VALUES, snapshot
from tests.support.admin import album_data

BOUND = 20.0
HUGE = "9" * 30
SEARCHED = HOSTILE_VALUES[:12] + [HOSTILE_VALUES[-5][:2000]]
PARAMETERS = [HOSTILE_VALUES[0], '{"$gt": ""}', "9" * 40, HOSTILE_VALUES[-5][:2000]]


@pytest.fixture
def root():
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-Long-enough-1")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.parametrize("field", ["weight", "width", "height", "depth", "list_price", "retail_price"])
@pytest.mark.parametrize("value", [HUGE, "-5", "1e400", "abc"])
def test_product_numbers_out_of_bounds_are_form_errors(root, field, value):
    answer = root.post("/admin/catalog/product/add/", album_data(**{field: value}))
    assert answer.status_code == 200 and "errorlist" in answer.content.decode()
    assert not Product.objects.exists()


@pytest.mark.parametrize("data", [{"set_qty": HUGE, "adjust_by": ""}, {"set_qty": "", "adjust_by": HUGE},
                                  {"set_qty": "", "adjust_by": "-" + HUGE}, {"set_qty": "-1", "adjust_by": ""}])
def test_stock_numbers_out_of_bounds_are_form_errors(root, data):
    Inventory.objects.ensure_stock(["SKU-1"], 10)
    answer = root.post("/admin/inventory/inventory/SKU-1/change/", data)
    assert answer.status_code == 200 and "errorlist" in answer.content.decode()
    assert Inventory.objects.available("SKU-1") == 10


def test_every_change_list_fed_hostile_values(chinook, root):
    before = snapshot()
    for model, model_admin in admin.site._registry.items():
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        # The search box gets every value (its text reaches the query); the ordering, page and
        # lookups one of each kind: a pattern, an operator, a huge number, a long text.
        queries = [{"q": value} for value in SEARCHED] + [
            {name: value} for name in ("o", "p", "unknown__gt", "pk__regex", "_id__in") for value in PARAMETERS]
        for query in queries:
            started = time.monotonic()
            answer = root.get(url, query)
            assert time.monotonic() - started < BOUND, (url, query)
            assert answer.status_code in (200, 302, 400), (url, query, answer.status_code)
    assert snapshot() == before
