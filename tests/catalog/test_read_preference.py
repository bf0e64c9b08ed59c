"""``MONGODB_READ_PREFERENCE``: applied to the catalog's read-only queries, not to writes."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from pymongo import ReadPreference

from catalog.models import Category, Product
from core.mongo import get_collection, read_preference

from tests.support.products import make_product


def test_default_is_primary():
    assert read_preference() == ReadPreference.PRIMARY


@pytest.mark.parametrize("name, expected", [
    ("secondaryPreferred", ReadPreference.SECONDARY_PREFERRED),
    ("nearest", ReadPreference.NEAREST),
])
def test_names(settings, name, expected):
    settings.MONGODB_READ_PREFERENCE = name
    assert read_preference() == expected


def test_unknown_name_is_a_configuration_error(settings):
    settings.MONGODB_READ_PREFERENCE = "secondary_preferred"
    with pytest.raises(ImproperlyConfigured, match="must be one of primary, primaryPreferred"):
        read_preference()


@pytest.fixture
def spy(monkeypatch, settings):
    """Record the read preference each ``with_options`` call asks for (on either engine)."""
    settings.MONGODB_READ_PREFERENCE = "secondaryPreferred"
    collection_class = type(get_collection("products"))
    original = collection_class.with_options
    asked = []

    def with_options(self, *args, **kwargs):
        # pymongo's own bulk_write and insert_many call with_options(codec_options=...):
        # only the calls that choose a read preference count.
        if "read_preference" in kwargs:
            asked.append(kwargs["read_preference"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(collection_class, "with_options", with_options)
    return asked


def test_storefront_reads_use_the_read_preference(spy, make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    product = make_product("Kind of Blue", genre=["Jazz"], categories=[tree["Rock"].pk])
    spy.clear()
    Product.objects.get_by_sku(product.sku)
    Product.listings.by_genre("Jazz").count()
    Product.search.suggest("kind")
    Product.listings.newest()
    Category.objects.get_by_slug("rock")
    Category.objects.breadcrumbs("rock")
    # newest() reads one window of issue dates or more (ListingManager.newest): each read,
    # however many, asks for the read preference.
    assert len(spy) >= 6 and all(asked == ReadPreference.SECONDARY_PREFERRED for asked in spy)


def test_the_category_page_reads_with_the_read_preference(client, spy, make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    make_product("Kind of Blue", categories=[tree["Rock"].pk])
    spy.clear()
    assert client.get("/c/music/").status_code == 200
    # the slug's id, the category, its subtree, the top categories, the product types, the
    # facet counts, the listing's order, its cards
    assert spy == [ReadPreference.SECONDARY_PREFERRED] * 8


def test_writes_and_the_reads_they_depend_on_use_the_primary(spy, make_tree):
    tree = make_tree({"Music": {}})
    spy.clear()
    rock = Category.writes.create_category("Rock", parent=tree["Music"])
    Category.writes.rename(rock, "Rock & Roll")
    Category.writes.move(rock, None)
    Product.writes.sync([])
    assert spy == []
