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


def _build_three_categories(runs):
    """Three categories (and their kept versions), counting its runs in ``runs``."""
    from catalog.models import Category

    runs.append(1)
    return {name: Category.writes.create_category(name) for name in ("Music", "Video", "Books")}


def test_a_fixture_built_once_is_inserted_the_same_at_its_next_call(db):
    from catalog.models import Category

    from tests.support.database import _built, built_once, empty_database

    runs, name = [], "test-built-once"
    _built.pop(name, None)
    try:
        made = built_once(name, lambda: _build_three_categories(runs))
        database = connections["default"].database
        before = {n: sorted(database[n].find({}), key=lambda d: str(d["_id"])) for n in _collections(database)}
        empty_database()
        again = built_once(name, lambda: _build_three_categories(runs))
        after = {n: sorted(database[n].find({}), key=lambda d: str(d["_id"])) for n in _collections(database)}
        assert runs == [1]  # built once, inserted the second time
        assert after == before and any(before.values())  # the same documents, ids included
        assert {k: v.pk for k, v in again.items()} == {k: v.pk for k, v in made.items()}
        assert Category.objects.get_by_slug("music").pk == made["Music"].pk
        # Into a database not empty, it builds again (and keeps nothing new).
        built_once(name, lambda: _build_three_categories(runs))
        assert runs == [1, 1]
    finally:
        _built.pop(name, None)
