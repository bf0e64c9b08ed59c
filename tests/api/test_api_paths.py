"""The FoundationDB "Hierarchical Documents" recipe through the API: a document whole and by path, and every bad path.

The "Hierarchical Documents" recipe keeps a document as its root-to-leaf paths so that any path prefix
reads a subtree; here MongoDB evaluates the path (``catalog/store/subdocuments.py``)
and the API answers ``/api/v1/products/<sku>/<path>``.
"""

import bson
import pytest
from bson import ObjectId

from api.encoding import to_json
from catalog.products.manager import ProductManager
from catalog.models import Product
from catalog.store.subdocuments import MAX_STEPS
from core.mongo.counter import count_operations
from tests.support.products import make_product

# A document in the source's spirit: nested objects and lists, lists of lists,
# an empty object and an empty list, keys that look like indices, a null.
TREE = {
    "sku": "SEED-002",
    "title": "Hierarchical",
    "pricing": {"list": 1000, "retail": 900, "savings": 100, "pct_savings": 10},
    "details": {
        "tracks": [{"number": n, "title": f"Track {n}", "tags": ["a", "b"][: n % 3]}
                   for n in range(1, 8)],
        "matrix": [[1, 2], [], [[3, {"deep": {"er": [4, 5]}}]]],
        "nothing": {},
        "none": [],
        "null": None,
        "numbered": {"0": "zero", "10": "ten"},
    },
}


@pytest.fixture
def tree_product():
    """``TREE`` stored as a product document, as the shop would store one."""
    Product.objects.collection.insert_one({**TREE, "_id": ObjectId(), "categories": [], "skus": [TREE["sku"]]})
    return TREE


def served(document):
    """What the API serves for the stored ``TREE``: without ``title_lower`` and ``_id``, with
    the currency."""
    return {**{k: v for k, v in document.items() if k not in ("_id", "title_lower", "skus")},
            "currency": "USD"}


def all_paths(value, prefix=()):
    """Every path of ``value`` (the source's tuples without their leaves), prefixes included."""
    yield prefix
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield from all_paths(child, (*prefix, str(key)))


def at(value, steps):
    for step in steps:
        value = value[int(step)] if isinstance(value, list) else value[step]
    return value


def get(client, path, **headers):
    url = f"/api/v1/products/SEED-002/{path}" if path else "/api/v1/products/SEED-002"
    return client.get(url, headers=headers)


def test_the_root_prefix_gives_the_whole_document(client, tree_product):
    response = get(client, "")
    assert response.status_code == 200
    body = response.json()
    assert ObjectId(body.pop("_id"))
    assert body == to_json(served({**TREE, "categories": []}))


def test_each_prefix_gives_its_subtree_in_order(client, tree_product):
    paths = [p for p in all_paths(TREE) if p]
    assert len(paths) > 40
    for steps in paths:
        response = get(client, "/".join(steps))
        assert response.status_code == 200, steps
        assert response.json() == at(TREE, steps), steps


def test_list_order_is_kept(client, tree_product):
    titles = [t["title"] for t in get(client, "details/tracks").json()]
    assert titles == [f"Track {n}" for n in range(1, 8)]
    assert get(client, "details/tracks/6/title").json() == "Track 7"


def test_empty_objects_and_lists_round_trip(client, tree_product):
    for path, empty in (("details/nothing", {}), ("details/none", []), ("details/matrix/1", []),
                        ("details/tracks/2/tags", [])):
        response = get(client, path)
        assert response.status_code == 200
        assert response.content == (b"{}" if empty == {} else b"[]")
    assert get(client, "details/null").content == b"null"


def test_keys_that_look_like_indices_are_keys_on_objects(client, tree_product):
    assert get(client, "details/numbered/10").json() == "ten"
    assert get(client, "details/numbered/1").status_code == 404


def test_a_path_reads_one_round_trip(client, tree_product):
    with count_operations() as ops:
        assert get(client, "details/matrix/2/0/1/deep/er/1").json() == 5
    assert ops.total == 1


def test_a_track_of_a_5000_track_album_moves_only_that_track(client, monkeypatch):
    """One aggregation, and what pymongo hands back is the track, not the album."""
    album = make_product("Long Album", sku="LONG-5000", tracks=[f"Song {n}" for n in range(5000)])
    returned = []
    real = ProductManager.read_collection

    class Spy:
        def __init__(self, collection):
            self.collection = collection

        def aggregate(self, pipeline):
            documents = list(self.collection.aggregate(pipeline))
            returned.extend(len(bson.encode(d)) for d in documents)
            return iter(documents)

        def find_one(self, *args):
            document = self.collection.find_one(*args)
            returned.append(len(bson.encode(document)))
            return document

    monkeypatch.setattr(ProductManager, "read_collection",
                        property(lambda self: Spy(real.fget(self))))
    with count_operations() as ops:
        response = client.get(f"/api/v1/products/{album.sku}/details/tracks/3")
    assert response.status_code == 200
    assert response.json()["title"] == "Song 3"
    assert ops.total == 1
    assert returned and max(returned) < 400
    # The whole album through the same spy: the size the path read did not move.
    response = client.get(f"/api/v1/products/{album.sku}")
    assert len(response.json()["details"]["tracks"]) == 5000
    assert max(returned) > 400_000


# -- bad input ---------------------------------------------------------------


@pytest.mark.parametrize("path, position", [
    ("details//tracks", 2),         # an empty step
    ("details/", 2),                # a trailing slash is an empty last step
    ("%24where", 1),                # a step starting with $
    ("details/%24ne", 2),
    ("details/tracks/%24%5B%5D", 3),
])
def test_malformed_paths_answer_400_without_a_query(client, tree_product, path, position):
    with count_operations() as ops:
        response = get(client, path)
    assert response.status_code == 400
    assert response.json()["position"] == position
    assert ops.total == 0


def test_more_than_32_steps_is_400_without_a_query(client, tree_product):
    with count_operations() as ops:
        response = get(client, "/".join(["a"] * (MAX_STEPS + 1)))
    assert response.status_code == 400
    assert "32" in response.json()["detail"]
    assert ops.total == 0


def test_32_steps_is_well_formed(client, tree_product):
    response = get(client, "/".join(["details"] + ["x"] * (MAX_STEPS - 1)))
    assert response.status_code == 404
    assert response.json()["position"] == 2


@pytest.mark.parametrize("path, step, position", [
    ("details/tracks/first", "first", 3),   # not an index, on a list
    ("details/tracks/-1", "-1", 3),         # a negative index
    ("details/tracks/1.0", "1.0", 3),
    ("details/tracks/+1", "+1", 3),
    ("details/matrix/0/x", "x", 4),
])
def test_a_step_that_is_not_an_index_on_a_list_is_400(client, tree_product, path, step, position):
    response = get(client, path)
    assert response.status_code == 400
    assert response.json()["step"] == step
    assert response.json()["position"] == position
    assert "list" in response.json()["detail"]


@pytest.mark.parametrize("path, position", [
    ("title/length", 2),            # a key on a string
    ("pricing/list/0", 3),          # an index on a number
    ("details/null/x", 3),          # a key on null
    ("details/tracks/0/number/x/y", 5),
])
def test_a_key_on_a_scalar_is_400(client, tree_product, path, position):
    response = get(client, path)
    assert response.status_code == 400
    assert response.json()["position"] == position


@pytest.mark.parametrize("path, step, position", [
    ("nope", "nope", 1),
    ("details/tracks/7", "7", 3),                  # past the end
    ("details/tracks/99999999999999999999", "99999999999999999999", 3),
    ("details/nothing/x", "x", 3),                 # a key of an empty object
    ("details/none/0", "0", 3),                    # an element of an empty list
    ("details/tracks/0/missing/deeper", "missing", 4),
    ("title_lower", "title_lower", 1),             # not served
])
def test_a_path_that_does_not_resolve_is_404_naming_the_first_step(client, tree_product, path,
                                                                    step, position):
    """(On SecantusDB the $type of a computed missing value is "object": without the {ok, v}
    pairs of catalog/store/subdocuments.py these answered 200 or 400.)"""
    response = get(client, path)
    assert response.status_code == 404
    body = response.json()
    assert (body["step"], body["position"]) == (step, position)
    assert repr(step) in body["detail"]


def test_unknown_sku_is_404(client, tree_product):
    for url in ("/api/v1/products/NOPE", "/api/v1/products/NOPE/title",
                "/api/v1/products/%7B%22%24ne%22%3A1%7D"):
        response = client.get(url)
        assert response.status_code == 404
        assert "No product" in response.json()["detail"]


def test_no_path_of_a_product_answers_500(client, tree_product):
    """Odd steps everywhere in the tree answer 200, 400 or 404, never anything else."""
    odd = ["", "$", "$$ROOT", "0", "-0", "00", "a.b", "..", "%00", "%2F", "\u00e9", " ",
           "4294967296", "null", "__proto__"]
    for steps in [p for p in all_paths(TREE)][:25]:
        for step in odd:
            response = get(client, "/".join([*steps, step]))
            assert response.status_code in (200, 400, 404), (steps, step)
