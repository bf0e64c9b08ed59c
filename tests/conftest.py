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
            made[name] = Category.objects.create_category(name, parent=parent)
            build(children, made[name], made)
        return made

    return build
