"""``ensure_indexes``: every index the shop needs, created when missing, reported."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pymongo.errors import OperationFailure

from catalog.indexes import CATEGORY_INDEXES, PRODUCT_INDEXES, create_catalog_indexes
from inventory.indexes import INVENTORY_INDEXES
from shop.mongo import get_collection
from shop.mongo.indexes import find_index


def run(**options):
    out = StringIO()
    call_command("ensure_indexes", stdout=out, **options)
    return out.getvalue()


@pytest.fixture
def restore_indexes():
    yield
    create_catalog_indexes()


def test_reports_every_expected_index():
    out = run()
    for table, indexes in (("categories", CATEGORY_INDEXES), ("products", PRODUCT_INDEXES),
                           ("inventory", INVENTORY_INDEXES)):
        for _keys, options in indexes:
            assert f"{table}.{options['name']}: present" in out  # migrate made them
    assert "products.keywords: present" in out  # the search's multikey index
    assert " 0 missing." in out


def test_creates_a_missing_index_then_is_idempotent(restore_indexes):
    products = get_collection("products")
    products.drop_index("pct_savings")
    out = run()
    assert "products.pct_savings: created" in out
    assert "pct_savings" in products.index_information()
    again = run()
    assert "products.pct_savings: present" in again and "created" not in again.replace(
        "0 created", "")


def test_check_only_reports_and_fails(restore_indexes):
    get_collection("categories").drop_index("ancestors_id")
    with pytest.raises(CommandError, match="1 index\\(es\\) missing: categories.ancestors_id"):
        run(check=True)
    assert "ancestors_id" not in get_collection("categories").index_information()


def test_same_keys_under_another_name_count_as_present(restore_indexes):
    products = get_collection("products")
    products.drop_index("pct_savings")
    products.create_index([("pricing.pct_savings", 1)], name="my_own_name")
    out = run()
    assert "products.pct_savings: present (as my_own_name)" in out
    products.drop_index("my_own_name")


def test_a_creation_failure_is_reported_and_exits_non_zero(restore_indexes, monkeypatch):
    products = get_collection("products")
    products.drop_index("retail_price")

    def refuse(self, *args, **kwargs):
        raise OperationFailure("disk full", code=14031, details={"errmsg": "disk full", "ok": 0})

    out = StringIO()
    with monkeypatch.context() as patch:
        patch.setattr(type(products), "create_index", refuse, raising=False)
        with pytest.raises(CommandError, match="products.retail_price"):
            call_command("ensure_indexes", stdout=out)
    assert "products.retail_price: missing (disk full)" in out.getvalue()


def test_find_index_by_keys_whatever_the_name():
    assert find_index({"x": {"key": [("a", 1.0), ("b", -1)]}}, [("a", 1), ("b", -1)]) == "x"
    assert find_index({"x": {"key": [("a", 1.0), ("b", 1)]}}, [("a", 1), ("b", -1)]) is None
    assert find_index({"_id_": {"key": [("_id", 1)]}}, [("a", 1)]) is None
