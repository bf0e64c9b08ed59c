"""Helpers for the import and export tests: files of generated products, the catalog's state."""

import csv
import json

from core import mongo

COLUMNS = ["sku", "type", "title", "description", "categories", "list_price", "price", "stock",
           "details.artist", "details.genre", "details.issue_date"]


def album_row(n, **changes):
    """A good row of an Audio Album ``IMP-<n>`` listed in Music > Rock."""
    row = {"sku": f"IMP-{n:05d}", "type": "Audio Album", "title": f"Album {n}", "description": f"Album number {n}",
           "categories": "Music > Rock", "list_price": "12.00", "price": "9.99", "stock": "5",
           "details.artist": f"Artist {n % 7}", "details.genre": "Rock|Pop", "details.issue_date": "2024-03-01"}
    row.update(changes)
    return row


def write_csv(path, rows, columns=None):
    """Write ``rows`` (dicts) as a CSV at ``path``; returns ``path``."""
    columns = columns or list(dict.fromkeys(c for r in rows for c in r))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return str(path)


def snapshot():
    """Every product and inventory document, by SKU (to assert nothing changed)."""
    return ({d["sku"]: d for d in mongo.get_collection("products").find({})},
            {d["_id"]: d for d in mongo.get_collection("inventory").find({})},
            list(mongo.get_collection("catalog_versions").find({})))
