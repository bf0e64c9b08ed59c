"""Fixtures: a database per test (emptied after each: MongoDB has no test transactions,
see tests/support/database.py), the Chinook catalog (``chinook``, there too), small category trees."""

import pytest
from django.core.cache import caches

# Fixtures shared by the apps' tests: ``browser`` (headless Chromium), ``sales`` and ``staff_client``.
pytest_plugins = ["tests.support.database", "tests.support.browser", "tests.support.sales"]


@pytest.fixture(autouse=True)
def _database(request, db):
    """Every test may use the database; it is emptied after each test, and so is the test
    payment provider's ledger; Django's caches start empty."""
    from tests.support.database import begin_test
    from tests.support.payments import forget_charges

    begin_test(request)
    for cache in caches.all():  # the catalog cache: each test starts cold
        cache.clear()
    yield
    forget_charges()


@pytest.fixture
def make_tree():
    """Build a category tree from nested dicts: ``make_tree({"Music": {"Rock": {}}})``.

    Returns ``{name: Category}``.
    """
    from catalog.models import Category

    def build(spec, parent=None, made=None):
        made = {} if made is None else made
        for name, children in spec.items():
            made[name] = Category.objects.create_category(name, parent=parent)
            build(children, made[name], made)
        return made

    return build
