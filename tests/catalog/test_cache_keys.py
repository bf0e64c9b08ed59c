"""What may enter the catalog cache (catalog/store/cache.py, catalog/storefront/views.py): a miss (an unknown
SKU or slug) is never stored, and the category heading is keyed by the cleaned price range, so
random URLs cannot fill the cache and evict useful entries."""

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from inventory.models import Inventory
from tests.support.products import make_product

CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cache-keys"}}


@pytest.fixture
def shop(make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    make_product("Alpha Album", genre=["Rock"], year=2001, list_cents=2000, retail_cents=1500,
                 categories=[tree["Rock"].pk], sku="SKU-A")
    Inventory.objects.ensure_stock(["SKU-A"], 10)
    with override_settings(CACHES=CACHE):
        caches["default"].clear()
        yield


def entries():
    return set(caches["default"]._cache)


def test_unknown_skus_and_slugs_are_not_cached(shop):
    client = Client()
    client.get("/c/rock/")  # warm: what the pages need (the 404 page's navigation too)
    client.get("/p/NO-SUCH/")
    warm = entries()
    for n in range(20):
        assert client.get(f"/p/NO-SUCH-{n}/").status_code == 404
        assert client.get(f"/c/no-such-{n}/").status_code == 404
    assert entries() == warm


def test_spellings_of_one_price_range_share_one_entry(shop):
    client = Client()
    first = client.get("/c/rock/", {"min_price": "5"})
    after_first = entries()
    for spelling in ("5.0", "05", "5.00", "005.00"):
        answer = client.get("/c/rock/", {"min_price": spelling, "unknown": spelling})
        assert answer.status_code == 200
        assert 'value="5.00"' in answer.content.decode()
    assert entries() == after_first
    assert 'value="5.00"' in first.content.decode()


def test_invalid_price_ranges_are_not_cached_and_show_their_own_text(shop):
    client = Client()
    client.get("/c/rock/")
    warm = entries()
    for n in range(10):
        answer = client.get("/c/rock/", {"min_price": f"cheap{n}"})
        assert answer.status_code == 400 and f'value="cheap{n}"' in answer.content.decode()
    assert entries() == warm
