"""The tests' own database handling (tests/support/database.py) keeps its promise of speed.

The Chinook copy is made once per test process from an empty database; when a
migration fills a collection the list of kept collections (``KEPT``) does not name,
the copy cannot be made and every ``chinook`` test runs ``load_catalog`` itself
(it did when the taxes app's migration began to seed ``tax_rates``: about 10 s a test).
"""

from django.core.management import call_command
from django.db import connections

from tests.support.database import KEPT, TYPES, _collections


def test_the_chinook_copy_is_made_once_per_test_process(_chinook_documents):
    assert _chinook_documents is not None
    assert {"products", "categories", "inventory"} <= set(_chinook_documents)


def test_every_collection_migrate_fills_is_kept(db):
    database = connections["default"].database
    call_command("migrate", verbosity=0)  # nothing to apply: post_migrate's writes only
    filled = {name for name in database.list_collection_names() if database[name].find_one({}, {"_id": 1})}
    assert filled - set(_collections(database)) <= KEPT | {TYPES}
    assert not filled & set(_collections(database)), "a collection migrate fills is not in KEPT"
