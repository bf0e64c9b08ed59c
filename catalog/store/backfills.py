"""Backfills run by the catalog's migrations: a new field computed for every document
already stored. Each is one read and one ``bulk_write`` of what differs, and returns how
many documents it updated; ``using`` is the database alias.
"""

from django.db import connections
from pymongo import UpdateOne

from catalog.products.keywords import KEYWORD_SOURCES, document_keywords
from catalog.listings.search import lower_title
from catalog.tree.nodes import listed_in
from catalog.products.variants import all_skus, variant_in


def _write(collection, updates):
    """Send ``updates`` (``UpdateOne``s) in one unordered ``bulk_write``; returns how many."""
    if updates:
        collection.bulk_write(updates, ordered=False)
    return len(updates)


def fill_title_lower(using="default"):
    """Set ``title_lower`` on every product from its title (migration ``0003``)."""
    collection = connections[using].get_collection("products")
    return _write(collection, [
        UpdateOne({"_id": d["_id"]}, {"$set": {"title_lower": lower_title(d.get("title"))}})
        for d in collection.find({}, {"title": 1, "title_lower": 1})
        if d.get("title_lower") != lower_title(d.get("title"))
    ])


def fill_keywords(using="default"):
    """Set ``keywords`` on every product whose stored words differ from its fields' (streamed;
    migration ``0004``)."""
    collection = connections[using].get_collection("products")
    projection = {"keywords": 1, **{path: 1 for path in KEYWORD_SOURCES}}
    updates = []
    for document in collection.find({}, projection):
        words = document_keywords(document)
        if document.get("keywords") != words:
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"keywords": words}}))
    return _write(collection, updates)


def fill_listed_in(using="default"):
    """Set ``listed_in`` (its categories and their ancestors) on every product whose stored
    value differs (migration ``0008``): one read of the categories' ancestors, one of the
    products, one ``bulk_write``."""
    connection = connections[using]
    ancestors = {d["_id"]: [a["_id"] for a in d.get("ancestors", [])]
                 for d in connection.get_collection("categories").find({}, {"ancestors._id": 1})}
    collection = connection.get_collection("products")
    updates = []
    for document in collection.find({}, {"categories": 1, "listed_in": 1}):
        value = listed_in(document.get("categories") or [], ancestors)
        if document.get("listed_in") != value:
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"listed_in": value}}))
    return _write(collection, updates)


def fill_skus(using="default"):
    """Set ``skus`` (its SKU, then its variants' SKUs: ``catalog.products.variants.all_skus``) on every
    product whose stored value differs (migration ``0010``): one read, one ``bulk_write``."""
    collection = connections[using].get_collection("products")
    updates = []
    for document in collection.find({}, {"sku": 1, "variants.sku": 1, "skus": 1}):
        value = all_skus(document.get("sku"), document.get("variants"))
        if document.get("skus") != value:
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"skus": value}}))
    return _write(collection, updates)


def number_siblings_by_name(using="default"):
    """Give every category the position of its name among its siblings (case-insensitive,
    ties by ``_id``; migration ``0005``, which adds ``Category.position``)."""
    collection = connections[using].get_collection("categories")
    by_parent = {}
    for document in collection.find({}, {"name": 1, "parent_id": 1, "position": 1}):
        by_parent.setdefault(document.get("parent_id"), []).append(document)
    updates = []
    for siblings in by_parent.values():
        siblings.sort(key=lambda d: (d["name"].lower(), d["_id"]))
        updates.extend(
            UpdateOne({"_id": d["_id"]}, {"$set": {"position": index}})
            for index, d in enumerate(siblings) if d.get("position") != index
        )
    return _write(collection, updates)


def fill_variant_in(using="default"):
    """Set ``variant_in`` (``catalog.products.variants.variant_in``: its categories paired with
    its variants' options) on every product whose stored value differs (migration ``0021``):
    one read of the products, one ``bulk_write``."""
    collection = connections[using].get_collection("products")
    updates = []
    for document in collection.find({}, {"listed_in": 1, "variants.options": 1, "variant_in": 1}):
        value = variant_in(document.get("listed_in"), document.get("variants"))
        if document.get("variant_in", []) != value:
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"variant_in": value}}))
    return _write(collection, updates)
