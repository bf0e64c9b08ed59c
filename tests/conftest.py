"""Fixtures: a database per test (emptied after each: MongoDB has no test transactions,
see tests/support/database.py), the Chinook catalog (``chinook``, there too), small category trees."""

import pytest
from django.core.cache import caches

# Fixtures shared by the apps' tests: ``browser`` (headless Chromium), ``sales`` and ``staff_client``.
pytest_plugins = ["tests.support.database", "tests.support.browser", "tests.support.sales"]


@pytest.fixture(autouse=True)
def _database(request, db, settings, monkeypatch):
    """Every test may use the database; it is emptied after each test; Django's caches start
    empty. Each test is a shop of its own on the local Stripe (``PAYMENT_SHOP_ID``, in every
    PaymentIntent's metadata), so it sees only its own payments there."""
    import uuid

    from tests.support.database import begin_test
    from tests.support.payments import track_intents

    settings.PAYMENT_SHOP_ID = f"test-{uuid.uuid4().hex[:12]}"
    track_intents(monkeypatch)
    begin_test(request)
    for cache in caches.all():  # the catalog cache: each test starts cold
        cache.clear()
    yield


@pytest.fixture
def make_tree():
    """Build a category tree from nested dicts: ``make_tree({"Music": {"Rock": {}}})``.

    Returns ``{name: Category}``.
    """
    from catalog.models import Category

    def build(spec, parent=None, made=None):
        made = {} if made is None else made
        for name, children in spec.items():
            made[name] = Category.writes.create_category(name, parent=parent)
            build(children, made[name], made)
        return made

    return build


@pytest.fixture
def made_facet_indexes():
    """Run ``ensure_indexes``, which also makes the facet indexes (no migration makes them);
    drop those after the test. A test database keeps its indexes from test to test, and other
    tests explain plans without them (the planner may otherwise pick a facet's index)."""
    from django.core.management import call_command

    from catalog.store.indexes import facet_indexes
    from core.mongo import get_collection

    call_command("ensure_indexes", verbosity=0)
    yield
    for table, specs in facet_indexes().items():
        made = get_collection(table).index_information()
        for _keys, options in specs:
            if options["name"] in made:
                get_collection(table).drop_index(options["name"])


def pytest_collection_modifyitems(items):
    """Within each test file, the tests asking for ``chinook`` first (otherwise in their
    order): a file then loads the catalog's copy once and empties it once
    (tests/support/database.py), instead of at each switch between a test with the
    catalog and one without (about 5 s of the local server's time per switch). Every
    test starts from the state it asks for whatever ran before it."""
    files = {}
    for index, item in enumerate(items):
        files.setdefault(item.nodeid.split("::")[0], index)
    items.sort(key=lambda item: (files[item.nodeid.split("::")[0]],
                                 "chinook" not in getattr(item, "fixturenames", ())))


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pytest.ini): one worker more than the machine's cores. A worker spends much
    of its time waiting on its own database server, the local Stripe, Chromium and the shops
    some tests start, so a third worker on 2 cores keeps them busy (the whole suite on the 2-core
    development machine: 15 min 51 s with 3 workers, 19 to 22 min with 2, 16 min 50 s with 4,
    the cores then 93 to 98 % busy)."""
    import os

    return (os.cpu_count() or 1) + 1
