"""The storefront's cache of catalog reads, keyed by the catalog's version.

What a storefront page reads of ``categories`` and ``products`` (a
category with its breadcrumbs, its subtree, the navigation, a listing's
count and page of cards, a product) is kept in Django's cache framework
(``CACHES["default"]``: per process by default, Redis or Memcached through
``CACHE_URL``) under a key that carries the catalog's version
(``CatalogVersion.objects``). Every catalog write changes that version, so
after a staff edit the next request of every process reads new keys: the
database, then the cache again. Entries of old versions are never read
again and expire (``CATALOG_CACHE_SECONDS``).

The version is read once per request, lazily (a request that reads nothing
of the catalog does not read it): ``catalog.middleware.CatalogVersionMiddleware``
opens the request's scope (``open_scope``) with the function that reads the
version, so this module imports no model. Outside a request (commands, the
managers called directly) nothing is cached: ``cached`` computes every time.

Stock is never cached: availability is read for the cards shown on each
request (``ProductManager.with_availability``).
"""

import contextvars
import hashlib

from django.conf import settings
from django.core.cache import caches

_MISSING = object()
# The current request's scope: a list of the function that reads the version, then the
# version once read.
_scope = contextvars.ContextVar("catalog_cache_scope", default=None)


def open_scope(read_version):
    """Open a request's cache scope; ``read_version()`` returns the catalog's version token
    (str) and is called at most once in it. Returns the token ``close_scope`` takes."""
    return _scope.set([read_version])


def close_scope(token):
    """Close the scope ``open_scope`` opened (``token`` is what it returned)."""
    _scope.reset(token)


def catalog_version():
    """The catalog's version token for the current request (read once per request: one round
    trip the first time), or None outside a request (nothing is cached then)."""
    scope = _scope.get()
    if scope is None:
        return None
    if len(scope) == 1:
        scope.append(scope[0]())
    return scope[1]


def forget_version():
    """Make the current request read the catalog's version again at its next cached read:
    called after each bump, so a request that writes to the catalog and then reads it (the
    admin) reads what it wrote. Nothing outside a request."""
    scope = _scope.get()
    if scope:
        del scope[1:]


def cache_key(kind, key, version):
    """The cache key of ``kind`` (a short name, e.g. ``"listing"``) and ``key`` (any value
    whose ``repr`` is stable: tuples, strings, ints, ObjectIds, dicts built in a fixed
    order) at catalog ``version``: ``"catalog:<version>:<kind>:<sha1 of repr(key)>"``."""
    digest = hashlib.sha1(repr(key).encode(), usedforsecurity=False).hexdigest()
    return f"catalog:{version}:{kind}:{digest}"


def cached(kind, key, compute):
    """``compute()``'s value, from the cache when this request's catalog version has it.

    ``compute`` returns something the cache can pickle (plain documents:
    dicts, lists, ObjectIds, datetimes; never stock). Outside a request it
    is simply called. A missing value is computed, stored for
    ``CATALOG_CACHE_SECONDS`` and returned; a computed None (no such
    product or category) is returned but never stored, so that requests for
    random SKUs and slugs cannot fill the cache and evict useful entries.
    """
    version = catalog_version()
    if version is None:
        return compute()
    store = caches[settings.CATALOG_CACHE]
    name = cache_key(kind, key, version)
    value = store.get(name, _MISSING)
    if value is _MISSING:
        value = compute()
        if value is not None:
            store.set(name, value, settings.CATALOG_CACHE_SECONDS)
    return value
