"""The shop's MongoDB layer over the wire: engine naming, the query forms the shop relies on,
the compiler shim, counting, atomic conditional updates."""

import sys

import pytest
from bson import ObjectId
from pymongo.errors import BulkWriteError

from catalog.models import Category
from core import mongo
from core.mongo.counter import count_operations
from tests.support.threads import run_many

@pytest.fixture
def probe():
    """A scratch collection outside the models (so not flushed by Django): dropped after."""
    collection = mongo.get_collection("engine_probe")
    collection.drop()
    yield collection
    collection.drop()


def test_engine_is_named_in_one_place(settings):
    expected = mongo.SERVER if settings.DATABASES["default"]["HOST"] else mongo.LOCAL
    assert mongo.engine() == expected


def test_orm_count_and_aggregate_are_right(make_tree):
    make_tree({"Music": {"Rock": {}, "Jazz": {}}})
    assert Category.objects.count() == 3
    assert Category.objects.filter(parent__isnull=False).count() == 2
    from django.db.models import Count

    assert Category.objects.aggregate(n=Count("pk"))["n"] == 3


def test_get_field_with_an_expression_input(probe):
    collection = probe
    collection.insert_one({"items": [{"name": "first"}]})
    pipeline = [{"$project": {"_id": 0, "name": {
        "$getField": {"field": "name", "input": {"$arrayElemAt": ["$items", 0]}}}}}]
    assert list(collection.aggregate(pipeline)) == [{"name": "first"}]


def test_type_of_an_object_id(probe):
    collection = probe
    collection.insert_one({"ref": ObjectId()})
    result = list(collection.aggregate([{"$project": {"_id": 0, "t": {"$type": "$ref"}}}]))
    assert result == [{"t": "objectId"}]


def test_orm_isnull_on_a_foreign_key(make_tree):
    # Lookups the admin and the pages use on the parent foreign key.
    made = make_tree({"Music": {"Rock": {}}})
    assert list(Category.objects.filter(parent__isnull=True)) == [made["Music"]]


def test_conditional_decrements_never_oversell(probe):
    """16 threads take one unit at a time from a stock of 500, five times over:
    exactly the stock is sold each time.

    The server applies each conditional update atomically; over the wire
    the 16 threads each have their own connection from pymongo's pool.
    """

    def buy(_number):
        mine = 0
        while probe.update_one({"_id": "sku", "qty": {"$gte": 1}}, {"$inc": {"qty": -1}}).modified_count:
            mine += 1
        return mine

    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _round in range(5):
            probe.delete_many({})
            probe.insert_one({"_id": "sku", "qty": 500})
            sold = run_many(buy, 16)
            assert sum(sold) == 500
            assert probe.find_one({"_id": "sku"})["qty"] == 0
    finally:
        sys.setswitchinterval(previous)


def test_counter_counts_round_trips_of_every_kind(probe):
    collection = probe
    with count_operations() as ops:
        collection.insert_one({"_id": 1, "n": 0})
        collection.update_one({"_id": 1}, {"$inc": {"n": 1}})
        list(collection.find({}))
        collection.find_one({"_id": 1})
    assert ops.total == 4
    assert ops.writes == 2
    assert ops.reads == 2
    assert {name for name, _ in ops.operations} == {"engine_probe"}


def test_counter_sees_nothing_outside_its_block(probe):
    collection = probe
    with count_operations() as ops:
        pass
    collection.insert_one({"_id": 2})
    assert ops.total == 0


def test_aggregate_opening_with_match_gives_what_a_server_gives(probe):
    probe.insert_many([{"_id": n, "kind": "odd" if n % 2 else "even", "n": n} for n in range(10)])
    pipeline = [
        {"$match": {"kind": "odd", "n": {"$gte": 3}}},
        {"$group": {"_id": "$kind", "total": {"$sum": "$n"}, "count": {"$sum": 1}}},
    ]
    assert list(probe.aggregate(pipeline)) == [{"_id": "odd", "total": 3 + 5 + 7 + 9, "count": 4}]
    expr = [{"$match": {"$expr": {"$gt": ["$n", 7]}}}, {"$sort": {"n": -1}}, {"$project": {"_id": 1}}]
    assert list(probe.aggregate(expr)) == [{"_id": 9}, {"_id": 8}]
    assert list(probe.aggregate([{"$match": {"n": 99}}])) == []


def test_aggregate_with_match_then_project_keeps_only_projected_fields(probe):
    probe.insert_many([{"_id": n, "n": n, "big": {"x": [1, 2, 3], "y": n}} for n in range(5)])
    pipeline = [{"$match": {"n": {"$lt": 2}}}, {"$project": {"big.y": 1}}, {"$sort": {"_id": -1}}]
    assert list(probe.aggregate(pipeline)) == [{"_id": 1, "big": {"y": 1}}, {"_id": 0, "big": {"y": 0}}]
    excluding = [{"$match": {"n": 4}}, {"$project": {"big": 0}}]
    assert list(probe.aggregate(excluding)) == [{"_id": 4, "n": 4}]


def test_insert_many_still_refuses_duplicate_unique_keys(probe):
    probe.create_index("sku", unique=True)
    probe.insert_many([{"sku": f"S-{n}"} for n in range(300)])
    # A server reports a clash in insert_many as a BulkWriteError (E11000).
    with pytest.raises(BulkWriteError, match="E11000"):
        probe.insert_many([{"sku": "new"}, {"sku": "S-7"}])
    with pytest.raises(BulkWriteError, match="E11000"):
        probe.insert_many([{"sku": "twice"}, {"sku": "twice"}])
    assert probe.count_documents({}) == 300 + 1 + 1  # ordered inserts stop at the clash
    assert probe.count_documents({"sku": "S-7"}) == 1


def test_in_and_nin_match_as_on_a_server(probe):
    a, b, c = ObjectId(), ObjectId(), ObjectId()
    probe.insert_many([
        {"_id": 1, "tags": [a, b]}, {"_id": 2, "tags": [c]}, {"_id": 3, "tags": a},
        {"_id": 4}, {"_id": 5, "tags": "x"}, {"_id": 6, "tags": [{"k": a}]}, {"_id": 7, "tags": 1},
    ])

    def ids(query):
        return sorted(d["_id"] for d in probe.find(query))

    assert ids({"tags": {"$in": [a]}}) == [1, 3]
    assert ids({"tags": {"$in": [b, c]}}) == [1, 2]
    assert ids({"tags": {"$in": ["x", "y"]}}) == [5]
    assert ids({"tags": {"$nin": [a]}}) == [2, 4, 5, 6, 7]
    assert ids({"tags": {"$in": [None]}}) == [4]
    assert ids({"tags": {"$in": [1.0]}}) == [7]
    # The same list object in two queries in a row, then a changed one.
    wanted = [c]
    assert ids({"tags": {"$in": wanted}}) == [2]
    wanted.append(a)
    assert ids({"tags": {"$in": wanted}}) == [1, 2, 3]


def test_insert_many_respects_partial_unique_indexes(probe):
    # Django's unique fields become partial unique indexes on MongoDB.
    probe.create_index("slug", unique=True, partialFilterExpression={"slug": {"$type": "string"}})
    probe.insert_many([{"slug": "same"}, {"slug": None}, {"slug": None}])
    with pytest.raises(BulkWriteError, match="E11000"):
        probe.insert_many([{"slug": "same"}])
    with pytest.raises(BulkWriteError, match="E11000"):
        probe.insert_many([{"slug": "twice"}, {"slug": "twice"}])
    assert probe.count_documents({"slug": "same"}) == 1
    assert probe.count_documents({"slug": None}) == 2


def test_models_unique_fields_hold_on_insert_many():
    from pymongo.errors import DuplicateKeyError

    products = mongo.get_collection("products")
    products.insert_many([{"sku": "DUP", "title": "a"}])
    with pytest.raises((DuplicateKeyError, BulkWriteError)):
        products.insert_many([{"sku": "DUP", "title": "b"}])
    assert products.count_documents({"sku": "DUP"}) == 1


def test_joined_fields_are_projected_in_dotted_form():
    # SecantusDB 0.7.0b3 returns the literal 1 for a nested inclusion after $lookup
    # ({"django_content_type": {"app_label": 1}}); MongoDB reads both forms the same.
    from core.mongo.compiler import flatten_projection

    nested = {"codename": 1, "django_content_type": {"app_label": 1, "model": 1},
              "n": {"$add": ["$a", 1]}}
    assert flatten_projection(nested) == {
        "codename": 1, "django_content_type.app_label": 1, "django_content_type.model": 1,
        "n": {"$add": ["$a", 1]},
    }


def test_permissions_join_content_types(django_user_model):
    # The query behind every permission check of a staff user without superuser rights.
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_product"))
    user = django_user_model.objects.get(pk=user.pk)
    assert user.get_all_permissions() == {"catalog.view_product"}
    assert user.has_perm("catalog.view_product") and not user.has_perm("catalog.change_product")


def test_staff_without_superuser_rights_use_the_admin(client, django_user_model):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_product"))
    client.force_login(user)
    assert client.get("/admin/catalog/product/").status_code == 200
    assert client.get("/admin/catalog/category/").status_code == 403


def test_racing_upserts_keep_the_first_document_and_the_rest_are_written(probe):
    from pymongo import ReplaceOne

    probe.create_index("key", unique=True)
    probe.insert_one({"_id": 1, "key": "a", "by": "the other reader"})
    # A second writer's upsert of "a" (under another _id) loses to the first; its other writes stand.
    mongo.keep_first_of_racing_upserts(probe, [
        ReplaceOne({"_id": 2}, {"_id": 2, "key": "a", "by": "this reader"}, upsert=True),
        ReplaceOne({"_id": 3}, {"_id": 3, "key": "b", "by": "this reader"}, upsert=True),
    ])
    assert {d["key"]: d["by"] for d in probe.find({})} == {"a": "the other reader", "b": "this reader"}
    with count_operations() as ops:
        mongo.keep_first_of_racing_upserts(probe, [])  # nothing to write: no round trip
    assert ops.total == 0
