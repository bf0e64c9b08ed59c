"""``ensure_indexes``: every index the shop needs, created when missing, reported."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pymongo.errors import OperationFailure

from analytics.indexes import INDEXES as ANALYTICS_INDEXES
from catalog.store.indexes import INDEXES as CATALOG_INDEXES
from catalog.store.indexes import facet_indexes
from core.mongo import get_collection
from core.mongo.indexes import create_indexes, find_index, registry


def run(**options):
    out = StringIO()
    call_command("ensure_indexes", stdout=out, **options)
    return out.getvalue()


@pytest.fixture
def restore_indexes():
    yield
    create_indexes(indexes=CATALOG_INDEXES)


@pytest.fixture(autouse=True)
def _facet_indexes(made_facet_indexes):
    """Each test starts with the facet indexes made, as after a deployment's ensure_indexes
    (``made_facet_indexes``, tests/conftest.py, drops them after)."""


def test_reports_every_expected_index():
    facets = [(table, options) for table, specs in facet_indexes().items() for _keys, options in specs]
    for table, options in facets:  # made by an earlier test, maybe
        if options["name"] in get_collection(table).index_information():
            get_collection(table).drop_index(options["name"])
    out = run()
    declared = registry()
    for table, indexes in declared.items():
        for _keys, options in indexes:
            assert f"{table}.{options['name']}: present" in out  # migrate made them
    assert "products.keywords: present" in out  # the search's multikey index
    # The facets' indexes follow the product types (data): no migration makes them, this does.
    assert all(f"{table}.{options['name']}: created" in out for table, options in facets)
    assert f"{len(facets)} created, {sum(map(len, declared.values()))} present, 0 missing." in out
    assert f"0 created, {sum(map(len, declared.values())) + len(facets)} present, 0 missing." in run()


def test_the_registry_holds_every_apps_indexes():
    declared = registry()
    assert {"categories", "products", "inventory", "carts", "orders", "events",
            "stats.hourly", "stats.daily", "stats.weekly", "stats.monthly", "stats.yearly"} <= set(declared)
    names = {table: [options["name"] for _keys, options in indexes] for table, indexes in declared.items()}
    assert names["carts"] == ["status_last_modified", "user_status"]  # Cart.Meta.indexes
    assert names["orders"] == ["user_placed_at", "order_status_placed_at", "order_email",
                               "order_invoice_due", "order_refund_restock",
                               "order_refund_at"]  # the last three: recoveries of returns and invoices
    assert names["invoices"] == ["invoice_order"]
    assert ([("user_id", 1), ("placed_at", -1)], {"name": "user_placed_at"}) in declared["orders"]
    # No index on ``d`` alone (analytics migration 0006): the rollups read a window kind by kind.
    assert names["stats.yearly"] == ["key_period", "kind_period"]


def test_migrate_made_every_registered_index():
    # A new index in an app's indexes.py needs a migration that creates it.
    for table, indexes in registry().items():
        information = get_collection(table).index_information()
        for keys, options in indexes:
            assert find_index(information, keys), f"{table}.{options['name']}"


def test_the_analytics_indexes_are_reported_and_restored():
    out = run(check=True)
    assert "events.userid_ts: present" in out
    assert "stats.hourly.key_period: present" in out and "stats.yearly.kind_period: present" in out
    assert "orders.user_placed_at: present" in out and "carts.status_last_modified: present" in out
    get_collection("stats.daily").drop_index("kind_period")
    get_collection("events").drop_index("ref")
    with pytest.raises(CommandError, match="2 index\\(es\\) missing: events.ref, stats.daily.kind_period"):
        run(check=True)
    out = run()
    assert "events.ref: created" in out and "stats.daily.kind_period: created" in out
    assert get_collection("events").index_information()["ref"].get("sparse") is True
    assert "kind_period" in get_collection("stats.daily").index_information()


def test_the_migrations_carry_their_own_index_specs():
    # Old migrations do not change when an app's indexes.py does.
    from pathlib import Path

    from django.conf import settings

    for app in ("catalog", "inventory", "analytics"):
        for migration in (Path(settings.BASE_DIR) / app / "migrations").glob("0*.py"):
            text = migration.read_text()
            assert f"from {app}.indexes" not in text and "create_catalog_indexes" not in text, migration
    assert ANALYTICS_INDEXES["stats.weekly"] == ANALYTICS_INDEXES["stats.hourly"]


def test_creates_a_missing_index_then_is_idempotent(restore_indexes):
    products = get_collection("products")
    products.drop_index("pct_savings")
    out = run()
    assert "products.pct_savings: created" in out
    assert "pct_savings" in products.index_information()
    again = run()
    # (An index name may hold the word, e.g. carts.status_created_at: look at the verdicts.)
    assert "products.pct_savings: present" in again and "0 created," in again
    assert not [line for line in again.splitlines() if line.endswith(": created")]


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
