"""Fixtures of the analytics tests, registered for every test by ``tests/conftest.py``:
a logged-in staff client, and a small catalog with imported sales and live events, rolled up."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from analytics.models import Event, RollupProgress
from catalog.models import Pricing, Product

UTC = datetime.UTC


def at(*parts):
    return datetime.datetime(*parts, tzinfo=UTC)


def analyst(username="staff", roll_up=True):
    """A staff user who may open the sales dashboard and reports (and roll up, with ``roll_up``)."""
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user(username, password="pw", is_staff=True)
    names = ["view_rollupprogress"] + (["change_rollupprogress"] if roll_up else [])
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="analytics", codename__in=names))
    return get_user_model().objects.get(pk=user.pk)  # no cached permissions


@pytest.fixture
def staff_client(client):
    client.force_login(analyst())
    return client


@pytest.fixture
def sales(make_tree):
    tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    for sku, category, retail, description in [
        ("A", "Metal", 999, "An album."), ("B", "Rock", 1999, ""), ("C", "Jazz", 450, "Jazz."),
    ]:
        Product.objects.create(sku=sku, type="Audio Album", title=f"Album {sku}", description=description,
                               categories=[tree[category].pk], pricing=Pricing.from_prices(2000, retail))
    rows = [
        (at(2023, 3, 6, 10), "A", 2, 2000),  # a Monday
        (at(2023, 3, 7, 11), "B", 1, 1999),  # a Tuesday
        (at(2023, 3, 7, 12), "C", 1, 450),
        (at(2024, 1, 1, 9), "C", 4, 1800),  # a Monday
    ]
    Event.objects.import_sales(
        [{"ref": f"t:{n}", "sku": s, "qty": q, "amount": a, "ts": ts} for n, (ts, s, q, a) in enumerate(rows)], "t:")
    Event.objects.insert_generated(
        [{"type": "view", "sku": "A", "qty": 1, "amount": 0, "userid": "", "ts": at(2023, 3, 6, 9, m)} for m in range(8)]
        + [{"type": "cart", "sku": "A", "qty": 1, "amount": 0, "userid": "", "ts": at(2023, 3, 6, 9, 30)}]
    )
    Event.objects.insert_generated(
        [{"type": "cart", "sku": "B", "qty": 1, "amount": 0, "userid": "", "ts": at(2023, 3, 7, 10, 0)}])
    RollupProgress.objects.rollup()
    return tree
