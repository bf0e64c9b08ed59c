"""No collection for an embedded model (core/mongo/embedded.py, shop/migrations/0001)."""

from django.core.management import call_command
from django.db import connection

from core.mongo.embedded import drop_empty_embedded_collections, embedded_collection_names


def test_the_embedded_models_are_known():
    names = embedded_collection_names()
    assert {"catalog_pricing", "catalog_attribute", "catalog_recordfield", "inventory_cartline", "orders_orderline"} <= names
    assert not names & {"products", "categories", "carts", "orders", "inventory"}


def test_no_collection_exists_for_an_embedded_model_after_migrate():
    call_command("migrate", verbosity=0)
    assert not embedded_collection_names() & set(connection.database.list_collection_names())


def test_the_migration_drops_only_empty_embedded_collections():
    database = connection.database
    database.create_collection("catalog_pricing")
    database["orders_orderline"].insert_one({"left": "by hand"})
    try:
        assert drop_empty_embedded_collections(database) == (["catalog_pricing"], ["orders_orderline"])
        assert "catalog_pricing" not in database.list_collection_names()
        assert database["orders_orderline"].count_documents({}) == 1
    finally:
        database.drop_collection("orders_orderline")
