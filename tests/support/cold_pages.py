"""Pages across categories on their first visit: a client with its own empty cache, a request
made cold, and a search by relevance as the one aggregation of before ranked it (the oracle the
kept forms are compared with: tests/catalog/test_pages_across.py, test_search_summary.py).

"Cold" is a cache that holds nothing of the catalog (the epoch bumped); what is kept in the
database stays.
"""

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from catalog.listings.facets import band_filter
from catalog.listings.query import ProductListing
from catalog.listings.ranking import RANK_FIELDS, search_ranking
from catalog.listings.search import SEARCH_SORTS, search_stages
from catalog.models import CatalogVersion, Product
from catalog.products.keywords import search_words
from catalog.store.cache import words_scope
from core.mongo.counter import count_operations

#: Products a page of the ``reader`` shows.
PER_PAGE = 10


@pytest.fixture
def reader(db, settings):
    """A client with its own empty cache (a process's), pages of ``PER_PAGE``."""
    settings.CATALOG_PAGE_SIZE = PER_PAGE
    cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cold-pages"}}
    with override_settings(CACHES=cache):
        caches["default"].clear()
        yield Client()


def cold_get(client, url):
    """``(response, ops)`` of ``url`` after the epoch's bump (nothing of the catalog cached)."""
    CatalogVersion.objects.bump()
    with count_operations() as ops:
        response = client.get(url)
    assert response.status_code == 200, url
    return response, ops


def aggregated(text, bands=()):
    """``(count, [(sku, matched)])`` of ``text`` by relevance as one aggregation ranks them (the
    form before), narrowed by the price ``bands`` (keys of ``facets.BAND_KEYS``)."""
    words = search_words(text)
    stages = search_stages(text) + ([band_filter(bands)] if bands else [])
    listing = ProductListing(Product.listings, stages, SEARCH_SORTS["relevance"], page_hint=(0, 500),
                             stages=search_ranking(words), extra_fields=RANK_FIELDS, scope=words_scope(words),
                             by_sku=True)
    return len(listing), [(p.sku, p.matched) for p in listing[0:500]]
