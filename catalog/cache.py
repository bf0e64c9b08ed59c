"""The storefront's cache of catalog reads, each keyed by the versions of what it shows.

What a storefront page reads of ``categories`` and ``products`` (a
category with its breadcrumbs, its subcategories, the navigation, a
listing's count and page of cards, a product, a fragment of HTML) is kept
in Django's cache framework (``CACHES["default"]``: per process by
default, Redis or Memcached through ``CACHE_URL``) under a key that carries
the tokens of its *scope*: the named versions (``CatalogVersion.objects``,
one small document each in ``catalog_versions``) of the parts of the
catalog it depends on. A catalog write bumps the versions of what it
changed, and only those (``catalog/writes.py`` decides which), so a page
that shows nothing of the change stays warm in every process.

The scopes (names of version documents):

- ``category:<id>``: what a category page reads of its own category (the
  document, its subcategories, its kept count, every page and sort of its
  listing, facet counts): bumped by a write of a product listed in it or
  below it (before or after the write), and by a change of the category, a
  child's name or position, or its subtree's place in the tree;
- ``names:<id>``: the breadcrumbs of the categories below ``<id>``: bumped
  when ``<id>`` is renamed (a category page's scope holds its ancestors'
  ``names:``, so a rename above it shows without cooling listings);
- ``product:<sku>``: a product page's document and fragments;
- ``navigation``: the top categories and their children (header, home page),
  bumped by a change of a category at depth 0 or 1;
- ``tree``: the whole tree (a product page's breadcrumbs, the admin's tree
  choices), bumped by every category change;
- the pages across categories, keyed by what decides which products they
  show, and by the products they show (``product:<sku>`` of each, named by
  the cached value itself: ``cached(..., shown=...)``): a search by
  relevance by ``words:<word>`` of its words (bumped when a product with the
  word changes its searchable text, is created or deleted); the deals by
  ``savings:<pct>`` from the lowest saving shown up and, for its count,
  ``savings-cross:<threshold + 1>`` (bumped by changes of ``pct_savings``
  between those values); the home page's newest by ``issued`` (a product's
  issue date changed, created or deleted). So a price edit cools those
  that show the product or whose order it changes, not the others;
- ``products``: the other listings across categories (genre, artist, actor,
  searches sorted by price or date), bumped by every product write;
- ``catalog`` (the *epoch*): in every key; bumped by a reset of the whole
  catalog (``delete_all``), and created with a random token when missing,
  so a database emptied and filled again starts from keys no cache holds.

A stock change is no catalog write: stock is never cached (availability is
read for the cards shown on each request, ``ProductManager.with_availability``).

**Reading the versions costs one round trip per request**, lazily: the
first cached read of a request reads, in one ``find({name: {$in: [...]}})``,
the base scopes (``catalog``, ``navigation``, ``tree``, ``products``), the
scope it needs, and the scopes the last request of the same page (path and
query) wanted after its first read (remembered, ``close_scope``). A later
read needing a version not read yet is computed and not kept (no second
round trip); the next request of the page reads that version with its
first. A category page's scope is known from the slug's remembered id
(``hint``), so its first request keeps what it reads.
``catalog.middleware.CatalogVersionMiddleware`` opens the request's scope
(``open_scope``) with the function that reads the versions, so this module
imports no model. Outside a request (commands, the managers called
directly) nothing is cached: ``cached`` computes every time.

For other modules:

- ``cached(kind, key, compute, scope)``: any cached catalog read;
- ``cached_with_listing(listing, kind, key, compute)``: a value that goes
  with a listing (a ``ProductQuery``/``ProductListing``/``CountedListing``:
  its ``scope``), e.g. the facet counts of a category or search page:
  cold exactly when the listing is. ``listing_scope(category_ids)`` is the
  same scope without a listing object (None: the cross-category listings);
- ``{% catalog_fragment "name" values... scope=<scope> %}`` for HTML
  (``catalog/templatetags/fragments.py``); views put their page's scope in
  the context as ``cache_scope``.
"""

import contextvars
import hashlib

from django.conf import settings
from django.core.cache import caches

#: The epoch: in every key; a reset of the catalog bumps it (see the module docstring).
EPOCH = "catalog"
NAVIGATION = "navigation"
TREE = "tree"
PRODUCTS = "products"
#: The issue dates of products (the home page's newest): bumped by a product created,
#: deleted, or given another issue date.
ISSUED = "issued"
#: Read with the first cached read of every request.
BASE = (EPOCH, NAVIGATION, TREE, PRODUCTS, ISSUED)
#: The token of a scope never bumped (no document yet); the epoch tells databases apart.
UNSET = "0"

_MISSING = object()
# The current request's scope: {"read": function(names) -> {name: token}, "tokens": {...}}.
_scope = contextvars.ContextVar("catalog_cache_scope", default=None)


def category_scope(ids):
    """The scope names of the categories ``ids`` (ObjectIds): ``("category:<id>", ...)``."""
    return tuple(f"category:{i}" for i in sorted(set(ids)))


def names_scope(ids):
    """The scope names of the breadcrumb names of categories ``ids``: ``("names:<id>", ...)``."""
    return tuple(f"names:{i}" for i in sorted(set(ids)))


def product_scope(skus):
    """The scope names of the products ``skus``: ``("product:<sku>", ...)``."""
    return tuple(f"product:{s}" for s in sorted(set(map(str, skus))))


def words_scope(words):
    """The scope names of search words: ``("words:<word>", ...)``: bumped by a write of a
    product that has the word (before or after) whose searchable text changes."""
    return tuple(f"words:{w}" for w in sorted(set(words)))


def savings_scope(pcts):
    """``("savings:<pct>", ...)``: bumped by a change of a product's ``pct_savings`` from or to
    each value (deals pages: their products and order)."""
    return tuple(f"savings:{int(p)}" for p in sorted(set(pcts)))


def crossing_scope(pcts):
    """``("savings-cross:<pct>", ...)``: ``savings-cross:<k>`` is bumped when the products
    saving ``k`` percent or more change (the count of deals over ``k - 1`` percent)."""
    return tuple(f"savings-cross:{int(p)}" for p in sorted(set(pcts)))


def shown_products(documents):
    """``product_scope`` of the product documents ``documents`` (those a page shows)."""
    return product_scope(d["sku"] for d in documents if "sku" in d)


def listing_scope(category_ids=None):
    """The scope of a listing of products: of the categories ``category_ids``, or (None)
    of a listing across categories (search, deals...): ``(PRODUCTS,)``."""
    return (PRODUCTS,) if category_ids is None else category_scope(category_ids)


def category_page_scope(category):
    """The scope of what a category page shows of ``category`` (a Category with ``ancestors``):
    its own version and its ancestors' names (its breadcrumbs)."""
    return category_scope([category.pk]) + names_scope(a.pk for a in category.ancestors)


def open_scope(read_versions, page=None):
    """Open a request's cache scope; ``read_versions(names)`` returns ``{name: token}`` of the
    version documents among ``names`` (one round trip), the epoch always included. ``page``
    (the request's path and query) names the scopes the last request of it read after its
    first read (``close_scope`` remembers them), read with its first. Returns the token
    ``close_scope`` takes."""
    return _scope.set({"read": read_versions, "tokens": {}, "page": page, "wanted": set()})


def close_scope(token):
    """Close the scope ``open_scope`` opened (``token`` is what it returned); when the request
    read versions after its first read, remember all it read for its page, so that the next
    request of the page reads them in one round trip."""
    state = _scope.get()
    try:
        if state and state["wanted"] and state["page"] is not None:
            names = ({*state["tokens"], *state["wanted"]} - set(BASE))
            remember("page-scopes", state["page"], tuple(sorted(names)))
    finally:
        _scope.reset(token)


def versions(names):
    """The tokens (a tuple of str, in the order of ``names``) of the scopes ``names`` for the
    current request, read at most once each per request; the first read also reads ``BASE``
    and the scopes the page read last time. None outside a request (nothing is cached then)."""
    state = _scope.get()
    if state is None:
        return None
    tokens = state["tokens"]
    missing = [n for n in names if n not in tokens]
    if missing:
        if tokens:
            ask = sorted(set(missing))
        else:
            page = hint("page-scopes", state["page"]) if state["page"] is not None else None
            ask = sorted({*missing, *BASE, *(page or ())})
        read = state["read"](ask)
        tokens.update({n: read.get(n, UNSET) for n in ask})
    return tuple(tokens[n] for n in names)


def catalog_version():
    """The epoch's token for the current request (see ``versions``), or None outside one."""
    found = versions((EPOCH,))
    return None if found is None else found[0]


def forget_version():
    """Make the current request read the versions again at its next cached read: called
    after each bump, so a request that writes to the catalog and then reads it (the admin)
    reads what it wrote. Nothing outside a request."""
    state = _scope.get()
    if state:
        state["tokens"].clear()


def cache_key(kind, key, tokens):
    """The cache key of ``kind`` (a short name, e.g. ``"listing"``) and ``key`` (any value
    whose ``repr`` is stable: tuples, strings, ints, ObjectIds, dicts built in a fixed
    order) at the scope tokens ``tokens`` (a tuple, the epoch's first):
    ``"catalog:<kind>:<sha1 of repr((key, tokens))>"``."""
    digest = hashlib.sha1(repr((key, tokens)).encode(), usedforsecurity=False).hexdigest()
    return f"catalog:{kind}:{digest}"


def cached(kind, key, compute, scope, shown=None):
    """``compute()``'s value, from the cache when the versions of ``scope`` (a tuple of
    scope names, see the module docstring) are those it was stored under.

    ``compute`` returns something the cache can pickle (plain documents:
    dicts, lists, ObjectIds, datetimes; never stock). Outside a request it
    is simply called. A missing value is computed, stored for
    ``CATALOG_CACHE_SECONDS`` and returned; a computed None (no such
    product or category) is returned but never stored, so that requests for
    random SKUs and slugs cannot fill the cache and evict useful entries.

    ``shown(value)``, when given, names the further scopes the value depends on that
    only the value tells (the products a page of deals shows, ``product:<sku>``...):
    they are remembered for ``key`` (``hint``) and read with the request's other versions
    the next time; a value whose ``shown`` differs from what was remembered is computed
    again, and kept only once the scopes it names were read before it was computed.
    """
    if shown is None:
        return _cached(kind, key, compute, scope)
    remembered = hint(f"shown:{kind}", key) or ()
    value = _cached(kind, (key, remembered), compute, (*scope, *remembered),
                    valid=lambda value: tuple(shown(value)) == remembered)
    names = tuple(shown(value)) if value is not None else remembered
    if names != remembered:
        remember(f"shown:{kind}", key, names)
    return value


def _cached(kind, key, compute, scope, valid=None):
    """``cached`` without ``shown``; ``valid(value)`` False: computed again, not kept."""
    state = _scope.get()
    if state is None:
        return compute()
    names = (EPOCH, *scope)
    if state["tokens"] and any(n not in state["tokens"] for n in names):
        # Versions the request's first read did not read: not read now (a second round
        # trip), but computed and kept for the page's next request, which reads them first.
        state["wanted"].update(names)
        return compute()
    tokens = versions(names)
    store = caches[settings.CATALOG_CACHE]
    name = cache_key(kind, key, tokens)
    value = store.get(name, _MISSING)
    if value is _MISSING or (valid is not None and not valid(value)):
        value = compute()
        if value is not None and (valid is None or valid(value)):
            store.set(name, value, settings.CATALOG_CACHE_SECONDS)
    return value


def cached_with_listing(listing, kind, key, compute):
    """``cached(kind, key, compute, listing.scope)``: a value computed from ``listing`` (a
    ``catalog.listing.ProductQuery`` or subclass) and cold exactly when it is: the facet
    counts of a category or search page. ``key`` must name what else the value depends on
    (the listing's filter, the facet choice)."""
    return cached(kind, key, compute, listing.scope)


def in_request():
    """Whether a request's cache scope is open (cached reads are kept)."""
    return _scope.get() is not None


def hint(kind, key):
    """A value remembered by ``remember`` (e.g. the id of a slug), or None (also outside a
    request). Not versioned: the caller checks it against what it reads."""
    if _scope.get() is None:
        return None
    return caches[settings.CATALOG_CACHE].get(cache_key(f"hint:{kind}", key, ()))


def remember(kind, key, value):
    """Remember ``value`` for ``hint(kind, key)`` (``CATALOG_CACHE_SECONDS``); nothing outside
    a request."""
    if _scope.get() is not None:
        caches[settings.CATALOG_CACHE].set(cache_key(f"hint:{kind}", key, ()), value,
                                           settings.CATALOG_CACHE_SECONDS)
