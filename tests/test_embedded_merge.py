"""$merge on _id (the rollups' write): same semantics on both engines; on the embedded engine,
by key instead of one full scan per document (shop/mongo/embedded.py ``_merge_by_id``)."""

import pytest
from mongomock_ng.collection import Collection as MockCollection

from shop.mongo import get_collection, is_embedded


@pytest.fixture
def collections():
    source, target = get_collection("merge_source"), get_collection("merge_target")
    yield source, target
    source.drop()
    target.drop()


def merge(source, **options):
    list(source.aggregate([
        {"$project": {"_id": "$key", "n": 1}},
        {"$merge": {"into": "merge_target", "on": "_id", "whenMatched": "replace",
                    "whenNotMatched": "insert", **options}},
    ]))


def test_merge_on_id_replaces_matches_and_inserts_the_rest(collections):
    source, target = collections
    target.insert_many([{"_id": "a", "n": 1, "old": True}, {"_id": "z", "n": 26}])
    source.insert_many([{"key": "a", "n": 10}, {"key": "b", "n": 2}])
    merge(source)
    assert sorted(target.find(), key=lambda d: d["_id"]) == [
        {"_id": "a", "n": 10}, {"_id": "b", "n": 2}, {"_id": "z", "n": 26}]
    merge(source)
    assert target.count_documents({}) == 3


@pytest.mark.skipif(not is_embedded(), reason="the embedded engine's fast path")
def test_embedded_merge_on_id_scans_no_document(collections, monkeypatch):
    source, target = collections
    target.insert_many([{"_id": f"k{n}", "n": n} for n in range(50)])
    source.insert_many([{"key": f"k{n}", "n": -n} for n in range(0, 60, 2)])

    def no_scan(*args, **kwargs):
        raise AssertionError("$merge scanned the target collection")

    monkeypatch.setattr(MockCollection, "find_one", no_scan)
    merge(source)
    monkeypatch.undo()
    assert target.find_one({"_id": "k4"})["n"] == -4
    assert target.find_one({"_id": "k58"})["n"] == -58
    assert target.count_documents({}) == 55


def test_merge_on_other_fields_still_works(collections):
    source, target = collections
    target.create_index("code", unique=True)
    target.insert_one({"code": "a", "n": 1})
    source.insert_many([{"code": "a", "n": 5}, {"code": "b", "n": 6}])
    list(source.aggregate([
        {"$project": {"_id": 0, "code": 1, "n": 1}},
        {"$merge": {"into": "merge_target", "on": "code", "whenMatched": "replace"}},
    ]))
    assert sorted((d["code"], d["n"]) for d in target.find()) == [("a", 5), ("b", 6)]


# -- $lookup by key (the same answers as upstream) ----------------------------------------


@pytest.fixture
def people():
    people, pets = get_collection("lookup_people"), get_collection("lookup_pets")
    people.insert_many([
        {"_id": 1, "name": "ann", "pets": ["rex", "tom"]},
        {"_id": 2, "name": "bob", "pets": "tom"},
        {"_id": 3, "name": "cy"},
        {"_id": 4, "name": "di", "pets": []},
    ])
    pets.insert_many([
        {"_id": "p1", "name": "rex", "kind": "dog"},
        {"_id": "p2", "name": "tom", "kind": "cat"},
        {"_id": "p3", "kind": "fish"},  # no name: matches a missing local field, as in MongoDB
        {"_id": "p4", "name": ["rex", "tom"], "kind": "twins"},
    ])
    yield people
    people.drop()
    pets.drop()


def test_lookup_matches_scalars_arrays_and_missing_fields(people):
    rows = people.aggregate([
        {"$lookup": {"from": "lookup_pets", "localField": "pets", "foreignField": "name", "as": "found"}},
        {"$project": {"found": "$found._id"}},
        {"$sort": {"_id": 1}},
    ])
    assert [sorted(r["found"]) for r in rows] == [["p1", "p2", "p4"], ["p2", "p4"], ["p3"], []]


@pytest.mark.skipif(not is_embedded(), reason="the embedded engine's fast path")
def test_embedded_lookup_reads_the_foreign_collection_once(people, monkeypatch):
    calls = []
    original = MockCollection.find

    def counting_find(self, *args, **kwargs):
        calls.append(self.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MockCollection, "find", counting_find)
    list(people.aggregate([
        {"$lookup": {"from": "lookup_pets", "localField": "pets", "foreignField": "name", "as": "found"}}]))
    assert calls.count("lookup_pets") == 1
