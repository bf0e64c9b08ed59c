"""The embedded engine's find-and-modify fix the cart operations rely on (shop/mongo/embedded.py).

Written against the pymongo API: on a real server it checks MongoDB's own behaviour.
"""

from pymongo import ReturnDocument

from shop.mongo import get_collection


def test_find_one_and_update_positional_operator_updates_the_matched_element():
    """mongomock-ng 7.11.1 updated element 0 (its ``_find_and_modify`` dropped the query)."""
    carts = get_collection("carts")
    carts.insert_one({"_id": "c1", "status": "active",
                      "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]})
    before = carts.find_one_and_update(
        {"_id": "c1", "items.sku": "B"},
        {"$set": {"items.$.qty": 5}},
        return_document=ReturnDocument.BEFORE,
    )
    assert before["items"][1]["qty"] == 2
    after = carts.find_one_and_update(
        {"_id": "c1", "items": {"$elemMatch": {"sku": "B", "qty": {"$lte": 5}}}},
        {"$inc": {"items.$.qty": 1}},
        return_document=ReturnDocument.AFTER,
    )
    assert after["items"] == [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 6}]


def test_find_one_and_update_upsert_still_works():
    stock = get_collection("inventory")
    document = stock.find_one_and_update(
        {"_id": "NEW"}, {"$inc": {"qty": 3}}, upsert=True, return_document=ReturnDocument.AFTER
    )
    assert document == {"_id": "NEW", "qty": 3}
