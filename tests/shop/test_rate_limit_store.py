"""The rate limits' counts cannot be flushed and are shared (core/mongo/countcache.py).

Before: django-ratelimit counted in the catalog's per-process memory cache (20,000
entries, least recently used out): 20,001 catalog inserts reset a counter at its limit,
and each worker counted apart.
"""

import threading
from datetime import timedelta

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.test import Client

from core import clock
from core.mongo.countcache import MongoCountCache

PASSWORD = "a-long-Passphrase-7"


def signup(client, email):
    return client.post("/account/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})


def test_a_count_at_its_limit_survives_a_flood_of_catalog_entries(settings):
    settings.SHOP_RATE_LIMITS = {**settings.SHOP_RATE_LIMITS, "signup": "2/m"}
    for n in range(2):
        assert signup(Client(), f"{n}@example.com").status_code == 302
    catalog = caches["default"]
    for n in range(50_000):  # what about 12,500 distinct searches write
        catalog.set(f"flood-{n}", n)
    assert signup(Client(), "late@example.com").status_code == 429


def test_two_workers_count_together_and_every_increment_counts():
    # Two backends as two gunicorn workers would make them: one count.
    first, second = MongoCountCache("rate_limits", {}), MongoCountCache("rate_limits", {})
    assert first.add("k", 1, 60) and not second.add("k", 1, 60)
    barrier = threading.Barrier(20)

    def bump(cache):
        barrier.wait()
        cache.incr("k")

    threads = [threading.Thread(target=bump, args=(first if n % 2 else second,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert first.get("k") == second.get("k") == 21


def test_an_expired_count_starts_again_and_add_resets_it_once(monkeypatch):
    cache = MongoCountCache("rate_limits", {})
    assert cache.add("k", 5, 60) and cache.incr("k") == 6
    later = clock.now() + timedelta(seconds=61)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert cache.get("k", "none") == "none"
    assert cache.add("k", 1, 60) and not cache.add("k", 1, 60)
    assert cache.get("k") == 1


def test_the_rate_limits_do_not_use_the_catalog_cache(settings):
    assert settings.RATELIMIT_USE_CACHE != "default"
    assert isinstance(caches[settings.RATELIMIT_USE_CACHE], MongoCountCache)
    assert not isinstance(caches[settings.RATELIMIT_USE_CACHE], LocMemCache)
