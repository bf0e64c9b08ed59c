"""Fixtures: a database per test (flushed after each: MongoDB has no test transactions),
the Chinook catalog, small category trees."""

import pytest
from django.core.management import call_command

# Fixtures shared by the apps' tests: ``browser`` (headless Chromium), ``sales`` and ``staff_client``.
pytest_plugins = ["tests.support.browser", "tests.support.sales"]


@pytest.fixture(autouse=True)
def _database(db):
    """Every test may use the database; it is emptied after each test, and so is the
    test payment provider's ledger."""
    yield
    from tests.support.payments import forget_charges

    forget_charges()


@pytest.fixture
def chinook():
    """The Chinook demo catalog, loaded with ``load_catalog``."""
    call_command("load_catalog", verbosity=0)


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
