"""Start-up on the local server, the sources' indexes migrate creates, and the
operation counter's command listener."""

import pytest
from django.contrib.auth import get_user_model
from pymongo import monitoring

from catalog.models import Product
from core import mongo
from core.mongo.counter import CommandCounter, count_operations
from shop import startup
from shop.startup import prepare_local_database


def test_migrate_creates_the_seed_indexes():
    categories = mongo.get_collection("categories").index_information()
    products = mongo.get_collection("products").index_information()
    assert categories["ancestors_id"]["key"] == [("ancestors._id", 1)]
    assert any(i["key"] == [("slug", 1)] and i.get("unique") for i in categories.values())
    assert any(i["key"] == [("parent_id", 1)] for i in categories.values())
    assert any(i["key"] == [("sku", 1)] and i.get("unique") for i in products.values())
    assert products["type_genre_issue_date"]["key"] == [
        ("type", 1), ("details.genre", 1), ("details.issue_date", -1)]
    assert products["pct_savings"]["key"] == [("pricing.pct_savings", 1)]
    assert products["type_actor_issue_date"]["key"] == [
        ("type", 1), ("details.actor", 1), ("details.issue_date", -1)]
    assert products["type_issue_date_title"]["key"] == [
        ("type", 1), ("details.issue_date", -1), ("title", 1)]
    assert products["categories"]["key"] == [("categories", 1)]


def test_migrate_replays_its_literal_index_specs_into_todays_indexes():
    # 0003 created type_artist_issue_date, 0004 replaced it by artist_issue_date.
    products = mongo.get_collection("products").index_information()
    assert "type_artist_issue_date" not in products
    assert products["artist_issue_date"]["key"] == [("details.artist", 1), ("details.issue_date", -1)]
    assert products["title_lower"]["key"] == [("title_lower", 1), ("_id", 1)]
    assert products["keywords"]["key"] == [("keywords", 1)]


def test_migrate_creates_the_analytics_and_orders_indexes():
    from analytics.indexes import INDEXES

    events = mongo.get_collection("events").index_information()
    assert events["userid_ts"]["key"] == [("userid", 1), ("ts", 1)]
    assert events["ref"]["key"] == [("ref", 1)] and events["ref"]["sparse"] is True
    levels = [name for name in INDEXES if name.startswith("stats.")]
    assert levels == ["stats.hourly", "stats.daily", "stats.weekly", "stats.monthly", "stats.yearly"]
    for level in levels:
        stats = mongo.get_collection(level).index_information()
        assert stats["key_period"]["key"] == [("k", 1), ("d", 1)]
        assert stats["kind_period"]["key"] == [("kind", 1), ("d", 1)]
        assert "period" not in stats  # dropped by analytics migration 0006 (local-server difference 23)
    orders = mongo.get_collection("orders").index_information()
    assert orders["user_placed_at"]["key"] == [("user_id", 1), ("placed_at", -1)]


@pytest.fixture
def local(monkeypatch, settings, tmp_path):
    """Start-up as on the local server (the test run's server stands in for it)."""
    monkeypatch.setattr(startup, "engine", lambda: mongo.LOCAL)
    settings.SHOP_LOCAL_DB_DIR = tmp_path  # where the start-up lock is taken


def test_start_up_does_nothing_with_mongodb_uri():
    assert prepare_local_database() is False
    assert Product.objects.count() == 0


def test_start_up_loads_the_demo_catalog_and_sales_and_creates_staff(settings, local, caplog):
    settings.SHOP_LOAD_DEMO_CATALOG = True
    settings.SHOP_ADMIN_USERNAME, settings.SHOP_ADMIN_PASSWORD = "boss", "s3cret-pass"
    with caplog.at_level("INFO", logger="shop.startup"):
        assert prepare_local_database() is True
    said = [r.getMessage() for r in caplog.records if r.name == "shop.startup"]
    # Where the database is, then each step of the demo as it ends (no long silence).
    assert said[0].startswith("Local database: the local server at ") and str(settings.SHOP_LOCAL_DB_DIR) in said[0]
    assert [line.split(":")[0] for line in said if line.startswith("Demo ")] == [
        "Demo 1/5", "Demo 2/5", "Demo 3/5", "Demo 4/5", "Demo 5/5"]
    assert Product.objects.count() == 347
    from shipping.models import ShippingZone

    # The default shipping zones (shipping/defaults.py): the shop's country, the EU, the rest of world.
    assert sorted(ShippingZone.objects.values_list("name", flat=True)) == [
        "European Union", "Rest of world", "United Kingdom"]
    boss = get_user_model().objects.get(username="boss")
    assert boss.is_staff and boss.is_superuser and boss.check_password("s3cret-pass")
    # The Chinook invoices as sales, rolled up for the dashboard.
    from analytics.models import Event, RollupProgress

    assert Event.objects.count() == 2240
    assert [b["d"].year for b in RollupProgress.objects.buckets("yearly")] == [2021, 2022, 2023, 2024, 2025]
    # A second start loads nothing twice and keeps the user.
    prepare_local_database()
    assert Product.objects.count() == 347
    assert get_user_model().objects.filter(username="boss").count() == 1


def test_start_up_never_loads_the_demo_over_staffs_edits(settings, local):
    """A database the demo was loaded into (by the test above), then edited by staff down to
    one product, renamed, and no category: a start loads nothing over it."""
    from catalog.models import Category
    from tests.support.products import make_product

    settings.SHOP_LOAD_DEMO_CATALOG = True
    make_product("Edited by staff", sku="CHK-0001")
    prepare_local_database()
    assert Product.objects.count() == 1
    assert Product.objects.get_by_sku("CHK-0001").title == "Edited by staff"
    assert not Category.objects.exists()


def test_start_up_without_debug_or_credentials_creates_no_user(settings, local):
    settings.SHOP_LOAD_DEMO_CATALOG = False
    settings.DEBUG = False
    settings.SHOP_ADMIN_USERNAME = settings.SHOP_ADMIN_PASSWORD = ""
    prepare_local_database()
    assert get_user_model().objects.count() == 0
    assert Product.objects.count() == 0


def started(name, command):
    return monitoring.CommandStartedEvent(
        {name: command, "$db": "shop"}, "shop", request_id=1, connection_id=("127.0.0.1", 27017),
        operation_id=1,
    )


def test_command_counter_records_a_servers_commands_but_not_the_drivers_own():
    listener = CommandCounter()
    with count_operations() as ops:
        listener.started(started("find", "products"))
        listener.started(started("update", "inventory"))
        listener.started(started("hello", 1))
        listener.started(started("endSessions", [{}]))
        listener.started(started("ping", 1))
    assert ops.operations == [("products", "find"), ("inventory", "update"), ("$cmd", "ping")]
    assert (ops.writes, ops.reads) == (1, 2)
