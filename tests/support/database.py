"""The test database between tests: a quick empty-out, and the Chinook catalog from a copy.

Registered for every test by ``tests/conftest.py`` (its ``_database`` fixture
calls ``begin_test``).

MongoDB has no test transactions, so Django's test cases ``flush`` after each
test, and ``flush`` then re-runs ``post_migrate``, which recreates every content
type and permission it has just deleted: about 140 round trips and most of a
second per test on the local server. Here a test's teardown instead empties
the collections the test wrote, and puts back by difference (``restore``) the
three that only ``migrate`` writes (``django_migrations``,
``django_content_type``, ``auth_permission``; read once per test process
before the first test) when the test may have written them, so each test
starts from the state ``flush`` + ``post_migrate`` gave, with the same ids.

The ``chinook`` fixture loads the catalog with ``load_catalog`` once per test
process and keeps its documents (raw BSON); a test asking for it gets them
inserted (one ``insert_many`` per collection) unless they are in place
already. After a test that wrote one of the catalog's collections, the
teardown puts that collection back by difference (one read, then only the
documents added, changed or removed are written) instead of emptying it: the
catalog has about 5,600 documents (4,897 in ``catalog_versions``), which the
local server takes about 5 s to delete and insert again, and about 0.2 s to
read. Writes are seen through pymongo's command monitoring (every client of
this process: the test, the live server's threads); a test that starts a
process (gunicorn, ``manage.py``), which may write unseen, counts as having
written every collection (all are emptied or put back; no ``flush``).
"""

import copy
import subprocess
import threading

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import testcases
from bson.codec_options import CodecOptions
from bson.raw_bson import RawBSONDocument
from pymongo import ReplaceOne, monitoring
from pymongo.errors import BulkWriteError, DuplicateKeyError

# Written by `migrate` (kept by an empty-out, as post_migrate would recreate them; put back by
# difference after a test that wrote them). `tax_rates`: the taxes app's migration seeds the
# EU, UK and US rates; `shipping_zones` and `shipping_methods`: the shipping app's seeds the
# "Rest of world" zone and its Standard method. A collection `migrate` fills and this list misses leaves the database
# not empty when the Chinook copy is first made, and every `chinook` test then runs
# load_catalog itself (about 10 s each): tests/shop/test_test_database.py checks the list.
KEPT = frozenset({"django_migrations", "django_content_type", "auth_permission", "tax_rates",
                  "shipping_zones", "shipping_methods"})
# Commands that write nothing (anything else counts as a write).
READS = frozenset({
    "find", "getMore", "count", "distinct", "listCollections", "listIndexes", "listDatabases",
    "hello", "isMaster", "ismaster", "ping", "buildInfo", "endSessions", "killCursors", "explain",
    "dbStats", "collStats", "serverStatus", "saslStart", "saslContinue", "getParameter",
    "connectionStatus", "hostInfo", "getCmdLineOpts", "currentOp",
    # A transaction's writes are each seen by their own command (insert, update... naming
    # the collection); its commit and abort name none (the invoices' numbering uses them).
    "commitTransaction", "abortTransaction",
})
EVERYTHING = "*"


class _WriteTracker(monitoring.CommandListener):
    """Notes the collections written since ``reset()`` (``EVERYTHING`` when unsure which)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.written = set()
        self.paused = False

    def reset(self):
        with self._lock:
            self.written = set()

    def note(self, name):
        with self._lock:
            self.written.add(name)

    def started(self, event):
        name = event.command_name
        if self.paused or name in READS:
            return
        if name == "aggregate":
            stages = event.command.get("pipeline") or []
            if not any("$merge" in stage or "$out" in stage for stage in stages):
                return
            self.note(EVERYTHING)
        elif name in ("insert", "update", "delete", "findAndModify", "create", "drop",
                      "createIndexes", "dropIndexes") and isinstance(event.command.get(name), str):
            self.note(event.command[name])
        else:
            self.note(EVERYTHING)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


tracker = _WriteTracker()
monitoring.register(tracker)

_original_popen_init = subprocess.Popen.__init__


def _noting_popen_init(self, *args, **kwargs):
    tracker.note(EVERYTHING)
    _original_popen_init(self, *args, **kwargs)


subprocess.Popen.__init__ = _noting_popen_init

# The Chinook collections now holding an untouched copy of the catalog (empty: none).
_resident = set()


# The product types the catalog migration creates: every test starts with them (``begin_test``
# puts them back when missing); emptied only after a test that wrote them.
TYPES = "product_types"


def _collections(database):
    """The collections of ``database`` a test may write (all but ``KEPT``, the product types
    and ``system.*``)."""
    return [name for name in database.list_collection_names()
            if name not in KEPT and name != TYPES and not name.startswith("system.")]


def migrated_types():
    """The product type documents migration ``catalog.0010_product_types`` creates (copies)."""
    import importlib

    return copy.deepcopy(importlib.import_module("catalog.migrations.0010_product_types").TYPES)


def ensure_product_types(alias="default"):
    """Put back the migrated product types a test removed (one read; one insert when missing)."""
    collection = connections[alias].database[TYPES]
    names = {d["name"] for d in collection.find({}, {"name": 1})}
    missing = [t for t in migrated_types() if t["name"] not in names]
    if missing and not names:
        collection.insert_many(missing)
    elif missing:
        collection.delete_many({})
        collection.insert_many(migrated_types())


def empty_database(alias="default"):
    """Delete every document of the test database ``alias`` except ``KEPT``'s (indexes stay)."""
    database = connections[alias].database
    for name in _collections(database):
        database[name].delete_many({})
    if alias == "default":
        _resident.clear()


_flush_fixture_teardown = testcases.TransactionTestCase._fixture_teardown

# Each ``KEPT`` collection's documents as ``migrate`` left them (raw BSON), read once per test
# process before the first test's teardown that may have written one.
_kept_documents = {}


def _raw(database, name):
    """Collection ``name`` of ``database`` reading documents as raw BSON (compared byte for byte)."""
    return database.get_collection(name, codec_options=CodecOptions(document_class=RawBSONDocument))


def restore(database, name, documents):
    """Make collection ``name`` hold exactly ``documents`` (raw BSON documents, as read) again,
    writing only the difference: one read of the collection, then one delete of the documents
    it does not hold, one bulk write of the ones changed and one insert of the ones missing
    (each only when needed). Returns the number of documents written.

    Falls back to emptying and reinserting the collection when a unique index refuses a step
    (a test that swapped two documents' unique keys)."""
    collection = _raw(database, name)
    wanted = {document["_id"]: document for document in documents}
    found = {document["_id"]: document for document in collection.find({})}
    extra = [key for key in found if key not in wanted]
    changed = [document for key, document in wanted.items()
               if key in found and found[key].raw != document.raw]
    missing = [document for key, document in wanted.items() if key not in found]
    try:
        if extra:
            collection.delete_many({"_id": {"$in": extra}})
        if changed:
            collection.bulk_write([ReplaceOne({"_id": d["_id"]}, d) for d in changed], ordered=True)
        if missing:
            collection.insert_many(missing, ordered=True)
    except (BulkWriteError, DuplicateKeyError):
        collection.delete_many({})
        if documents:
            collection.insert_many(documents, ordered=True)
    return len(extra) + len(changed) + len(missing)


def _restore_kept(database):
    """Put the ``KEPT`` collections back as ``migrate`` left them (by difference)."""
    if not _kept_documents:
        return False
    for name, documents in _kept_documents.items():
        restore(database, name, documents)
    return True


def _fast_fixture_teardown(self):
    """``TransactionTestCase._fixture_teardown``: empty what the test wrote, without
    ``flush``'s post_migrate rebuild. The Chinook copy, when in place, is put back by
    difference (``restore``) rather than emptied; the ``KEPT`` collections too, when the
    test may have written them. A test that started a process (its writes unseen)
    counts as having written every collection."""
    written = tracker.written
    everything = EVERYTHING in written
    for alias in self._databases_names(include_mirrors=False):
        if alias != "default":
            empty_database(alias)
            continue
        database = connections[alias].database
        tracker.paused = True
        try:
            if (everything or written & KEPT) and not _restore_kept(database):
                _flush_fixture_teardown(self)
                _resident.clear()
                continue
            chinook = _chinook_cache.get("documents") or {}
            names = set(_collections(database)) | {TYPES} if everything else written - KEPT
            for name in names:
                if name in _resident and name in chinook:
                    restore(database, name, chinook[name])
                else:
                    database[name].delete_many({})
                    _resident.discard(name)
        finally:
            tracker.paused = False
        if _resident and _resident != set(chinook):
            empty_database(alias)
    tracker.reset()


testcases.TransactionTestCase._fixture_teardown = _fast_fixture_teardown

_chinook_cache = {}


# Fixtures that may come before ``chinook`` in a test and write none of its collections.
_HARMLESS = frozenset({"request", "db", "transactional_db", "client", "admin_client", "admin_user",
                       "live_server", "browser", "axe_source", "staff", "staff_client", "caplog",
                       "capsys", "monkeypatch", "settings", "tmp_path", "mailoutbox", "rf"})


def _needs_chinook(name2fixturedefs, name, seen=None):
    """True when fixture ``name`` depends on ``chinook`` (so it runs after it)."""
    seen = set() if seen is None else seen
    if name in seen or name not in name2fixturedefs:
        return False
    seen.add(name)
    argnames = name2fixturedefs[name][-1].argnames
    return "chinook" in argnames or any(_needs_chinook(name2fixturedefs, a, seen) for a in argnames)


def begin_test(request):
    """Called before each test's fixtures (``request``: the test's): starts noting the
    test's writes, after an empty-out unless the test asks for ``chinook`` and nothing
    set up before it might write the catalog.

    The catalog left from an earlier test is then the one ``load_catalog`` would
    write for this test.
    """
    names = list(request.fixturenames)
    defs = request.node._fixtureinfo.name2fixturedefs
    keep = "chinook" in names and all(
        name in _HARMLESS or name.startswith(("_", "django_")) or _needs_chinook(defs, name)
        for name in names[:names.index("chinook")])
    tracker.paused = True
    try:
        if not _kept_documents:
            database = connections["default"].database
            _kept_documents.update({name: list(_raw(database, name).find({})) for name in KEPT})
        if _resident and not keep:
            empty_database()
        ensure_product_types()
    finally:
        tracker.paused = False
    tracker.reset()


@pytest.fixture(scope="session")
def _chinook_documents(django_db_setup, django_db_blocker):
    """``{collection: [documents]}`` written by ``load_catalog`` into an empty database.

    ``None`` when the database was not empty at that moment (the fixture then
    falls back to running the command for each test).
    """
    with django_db_blocker.unblock():
        database = connections["default"].database
        if any(database[name].find_one({}, {"_id": 1}) for name in _collections(database)):
            return None
        # A session fixture runs before the test's own (begin_test): the migrated product types
        # an earlier test removed are put back here too, or the catalog has no type to load into.
        ensure_product_types()
        call_command("load_catalog", verbosity=0)
        documents = {}
        for name in _collections(database):
            found = list(_raw(database, name).find({}))
            if found:
                documents[name] = found
        empty_database()
        tracker.reset()
        _chinook_cache["documents"] = documents
        return documents


@pytest.fixture
def chinook(_chinook_documents):
    """The Chinook demo catalog, as ``load_catalog`` loads it."""
    if _chinook_documents is None:
        call_command("load_catalog", verbosity=0)
        return
    if _resident == set(_chinook_documents):
        return
    if tracker.written & (set(_chinook_documents) | {EVERYTHING}):
        # An earlier fixture of this test wrote the catalog's collections: the command merges.
        call_command("load_catalog", verbosity=0)
        return
    database = connections["default"].database
    tracker.paused = True
    try:
        for name, documents in _chinook_documents.items():
            _raw(database, name).insert_many(documents, ordered=True)
    finally:
        tracker.paused = False
    _resident.update(_chinook_documents)


# Fixtures' data kept per test process: ``{name: (documents, value)}`` (``built_once``).
_built = {}


def built_once(name, build):
    """``build()``'s return value, and the documents it writes, in an empty test database:
    ``build`` runs at the first call of this test process, which keeps what it wrote (raw
    BSON, every collection but ``KEPT``'s); a later call with the same ``name`` inserts those
    documents instead (one ``insert_many`` per collection) and returns the same value. For a
    large fixture that several tests of a file build the same way (hundreds of products
    written one by one: 6 to 12 s each on the local server, well under 1 s inserted).

    ``build`` must write the same whatever ran before it (no clock, no random seed left
    open) and leave the caches as they start (each test's own are emptied first anyway).
    Runs ``build`` each time, keeping nothing, when the database is not empty at the call
    (the test wrote something before) or ``build`` wrote the product types or started a
    process (its writes unseen), or wrote a collection ``migrate`` fills (``KEPT``)."""
    database = connections["default"].database
    kept = _built.get(name)
    empty = not any(database[n].find_one({}, {"_id": 1}) for n in _collections(database))
    if kept is not None and empty:
        documents, value = kept
        for collection, found in documents.items():  # seen by the tracker: emptied after the test
            _raw(database, collection).insert_many(found, ordered=True)
        return copy.deepcopy(value)
    written_before = set(tracker.written)
    tracker.reset()
    value = build()
    written = set(tracker.written)
    with tracker._lock:
        tracker.written |= written_before
    if empty and not (written & (KEPT | {TYPES, EVERYTHING})):
        _built[name] = ({n: list(_raw(database, n).find({})) for n in written
                         if database[n].find_one({}, {"_id": 1})}, copy.deepcopy(value))
    return value
