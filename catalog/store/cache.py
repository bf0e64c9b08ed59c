"""The storefront's cache of catalog reads, each keyed by the versions of what it shows.

What a storefront page reads of ``categories`` and ``products`` (a
category with its breadcrumbs, its subcategories, the navigation, a
listing's count and page of cards, a product, a fragment of HTML) is kept
in Django's cache framework (``CACHES["default"]``: per process by
default, Redis or Memcached through ``CACHE_URL``) under a key that carries
the tokens of its *scope*: the named versions (``CatalogVersion.objects``,
one small document each in ``catalog_versions``) of the parts of the
catalog it depends on. A catalog write bumps the versions of what it
changed, and only those (``catalog/store/writes.py`` decides which), so a page
that shows nothing of the change stays warm in every process.

The scopes (names of version documents):

- ``category:<id>``: what a category page reads of its own category and
  which products it lists (the document, its subcategories, its kept count;
  in the key of everything else it shows): bumped by a write that adds a
  product to its listing (in it or below it) or removes one, and by a
  change of the category, a child's name or position, or its subtree's
  place in the tree;
- ``cards:<id>``: the cards its listing shows with a price range or chosen
  facets: bumped by any write of a product listed in it. A page without them
  keys its cards by the versions of the products it shows (``product:<sku>``),
  so an edit cools the pages showing the product, not every page of its
  categories; its cards are re-read by their ids (one small read), from the
  order of the page kept under the narrower scopes below, which is what costs
  a sort of the category's products on the local server;
- ``order-title:<id>``, ``order-issued:<id>``: the order of its listing by
  title, newest first: bumped when a product listed in it changes its title,
  its issue date;
- ``prices:<id>:<band>``: the order by price, in narrow price bands
  (``price_band``): a price change bumps the bands from the old price to the
  new, and a page sorted by price is keyed by the bands from its first
  product's price to its last's (``cached(..., shown=...)``), so an edit
  cools the pages whose prices it moves products across, not the others;
  its order is read after the versions of all its category's bands
  (``prices_family``, ``cached(..., family=...)``), so it is kept from its
  first request;
- ``titles:<id>:<window>``, ``prices:<id>:n<band>``: its products whose title starts
  with the same three characters (``title_window``), whose price lies in one band about
  2 % wide (``price_count_band``): bumped with the old and the new window or band when a
  product listed in it changes its title or price, and when one joins or leaves it; the
  versions of its kept order counts (``catalog/listings/order_count_manager.py``);
- ``faceted:<id>``: its facet counts: bumped when a product listed in it
  changes what they count (type, facet price band, details, variants'
  options); ``faceted:<id>:<part>`` the counts of its products of one issue
  decade (``catalog/listings/facet_parts.py``), bumped for the decades of such
  a product before and after, when it changes its issue date, and when it
  joins or leaves the listing; ``relisted:<id>`` the products it lists changed
  by a category write (a move of a subtree below it, out or in): with the
  decades', the versions of its facet counts kept in the database
  (``FacetCount.objects``), which no epoch bump cools;
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
  word changes its searchable text, its faceted values or its SKU, is created
  or deleted), which key its count and order, and its cards read by SKU under
  ``product:<sku>`` of each (``ListingManager.counted_cards``: two layers, so
  it is kept from its first request); the deals
  (counted and read per saving, ``catalog.listings.query.DealsListing``) by
  ``savings:<pct>`` of each saving they count or show (bumped by a change of
  a product's ``pct_savings`` from or to it, or of its SKU), their cards read by
  SKU as a search's, their counts per saving also kept in the database
  (``SavingsCount.objects``) stamped with ``savings:<pct>`` and ``savings-kept`` (bumped by
  a load that bumps the epoch instead of each saving, and by a reset); the home page's newest by ``issued`` (a product's
  issue date or SKU changed, created or deleted), its cards the same. So a price edit cools those
  that show the product or whose order it changes, not the others;
- ``products``: the other listings across categories (genre, artist, actor,
  searches sorted by price or date), bumped by every product write;
- ``offers``: the automatic offers (promotions), whose labels the cards and
  product pages show; its token is written by promotions when an offer is
  saved or deleted and says how many are active and when they start or end
  (``promotions.labels``), so a page knows without a read whether any
  offer applies; read with the base scopes;
- ``catalog`` (the *epoch*): in every key; bumped by a reset of the whole
  catalog (``delete_all``), and created with a random token when missing,
  so a database emptied and filled again starts from keys no cache holds.

A stock change is no catalog write: stock is kept apart, per SKU, for
``STOCK_SHOWN_SECONDS`` and forgotten by every stock write (``inventory/shown.py``, read
through ``ListingManager.with_availability``).

**Reading the versions costs one round trip per request**, lazily: the
first cached read of a request reads, in one ``find({name: {$in: [...]}})``,
the base scopes (``catalog``, ``navigation``, ``tree``, ``products``), the
scope it needs, those asked for ahead (``prefetch``), and the scopes the
last request of the same page (path and query) wanted after its first read
(remembered, ``close_scope``). A later read needing a version not read yet
reads it (one more round trip, only while the page's scopes change), and the
next request of the page reads it with its first. A cold value whose scopes are a
family known by prefix only (a category's price bands) reads the whole family first
(``read_family``, one round trip). A category page's scope
is known from the slug's remembered id (``hint``), so its first request
keeps what it reads.
``catalog.storefront.middleware.CatalogVersionMiddleware`` opens the request's scope
(``open_scope``) with the function that reads the versions, so this module
imports no model. Outside a request (commands, the managers called
directly) nothing is cached: ``cached`` computes every time.

For other modules:

- ``cached(kind, key, compute, scope)``: any cached catalog read;
  ``cached_many`` several of one kind together;
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
import math

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
#: The deals' counts kept in the database (``SavingsCount.objects``): bumped by a write that
#: names too many versions to bump ``savings:<pct>`` one by one (a load) and by a reset.
SAVINGS_KEPT = "savings-kept"
#: The searches' summaries kept in the database (``SearchSummary.objects``): bumped as
#: ``savings-kept`` is, by a write naming too many versions to bump each ``words:<word>``.
SEARCH_KEPT = "search-kept"
#: The automatic offers' labels (promotions.labels): written when an offer is saved or deleted.
OFFERS = "offers"
#: Read with the first cached read of every request.
BASE = (EPOCH, NAVIGATION, TREE, PRODUCTS, ISSUED, OFFERS)
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


def savings_part_scope(pct, parts):
    """``("savings:<pct>:<part>", ...)``: the products saving ``pct`` percent issued in each
    decade of ``parts`` (``catalog/listings/facet_parts.py``), bumped with ``savings:<pct>``."""
    return tuple(f"savings:{int(pct)}:{p}" for p in sorted(set(parts), key=str))


def shown_products(documents):
    """``product_scope`` of the product documents ``documents`` (those a page shows)."""
    return product_scope(d["sku"] for d in documents if "sku" in d)


def cards_scope(ids):
    """``("cards:<id>", ...)`` of the categories ``ids``: bumped by every write of a product
    listed in one of them (what their cards show)."""
    return tuple(f"cards:{i}" for i in sorted(set(ids)))


def order_scope(ids, field):
    """``("order-<field>:<id>", ...)`` of the categories ``ids``: bumped when a product listed
    in one of them changes ``field`` (``"title"`` or ``"issued"``), the order of a listing
    sorted by it."""
    return tuple(f"order-{field}:{i}" for i in sorted(set(ids)))


#: Each price band of ``prices_scope`` is this many times as wide as the one below it.
PRICE_BAND_RATIO = 1.1


def price_band(cents):
    """The narrow price band (an int, 0 for no price or under 1 cent) of ``cents`` for
    ``prices_scope``: bands about 10 % wide (``PRICE_BAND_RATIO``), so that a price change
    spans a few of them and a page of a listing sorted by price one or two."""
    if not cents or cents < 1:
        return 0
    return 1 + int(math.log(cents) / math.log(PRICE_BAND_RATIO))


def prices_scope(ids, low_cents, high_cents):
    """``("prices:<id>:<band>", ...)`` of the categories ``ids`` and every ``price_band``
    from ``low_cents``'s to ``high_cents``'s: bumped, from a product's old price to its new
    one, when a product listed in one of them changes its retail price, so that a page
    sorted by price is cold only when that change moves products across the prices it
    shows (between its first and its last)."""
    low, high = sorted((price_band(low_cents), price_band(high_cents)))
    return tuple(f"prices:{i}:{band}" for i in sorted(set(ids)) for band in range(low, high + 1))


def prices_family(category_id):
    """``"prices:<id>:"``: the prefix of every ``prices_scope`` name of the category
    ``category_id`` (``cached(..., family=...)`` reads them all at once)."""
    return f"prices:{category_id}:"


#: Each price band of ``price_count_scope`` is this many times as wide as the one below it.
PRICE_COUNT_RATIO = 1.02
#: A title window (``titles_scope``) is the titles that start with the same this many characters.
TITLE_WINDOW = 3


def price_count_band(cents):
    """The price band (an int, 0 for no price or under 1 cent) of ``cents`` for
    ``price_count_scope``: bands about 2 % wide (``PRICE_COUNT_RATIO``), finer than
    ``price_band``'s, so that a price edit recounts few products."""
    if isinstance(cents, bool) or not isinstance(cents, (int, float)) or cents < 1:
        return 0
    return 1 + int(math.log(cents) / math.log(PRICE_COUNT_RATIO))


def price_count_scope(ids, prices):
    """``("prices:<id>:n<band>", ...)`` of the categories ``ids`` and the ``price_count_band`` of
    each of ``prices`` (cents): bumped when a product listed in one of them changes its
    retail price from or to one of the band, or joins or leaves the listing, so that the kept
    order counts of the band (``catalog/listings/order_count_manager.py``) are counted
    again. In the family of ``prices_family`` (read with it, at no cost), named apart from
    the page bands of ``prices_scope``."""
    bands = sorted({price_count_band(p) for p in prices})
    return tuple(f"{prices_family(i)}n{band}" for i in sorted(set(ids)) for band in bands)


def title_window(title):
    """The title window (a str) of ``title`` for ``titles_scope``: its first ``TITLE_WINDOW``
    characters (the whole title when shorter), or ``""`` for no title, an empty one or one
    that is not a string (those sort before every other title)."""
    return title[:TITLE_WINDOW] if isinstance(title, str) else ""


def titles_family(category_id):
    """``"titles:<id>:"``: the prefix of every ``titles_scope`` name of ``category_id``."""
    return f"titles:{category_id}:"


def titles_scope(ids, titles):
    """``("titles:<id>:<window>", ...)`` of the categories ``ids`` and the ``title_window`` of
    each of ``titles``: bumped when a product listed in one of them changes its title from
    or to one of the window, or joins or leaves the listing, so that the kept order counts
    of the window (``catalog/listings/order_count_manager.py``) are counted again."""
    windows = sorted({title_window(t) for t in titles})
    return tuple(f"{titles_family(i)}{w}" for i in sorted(set(ids)) for w in windows)


def faceted_scope(ids):
    """``("faceted:<id>", ...)`` of the categories ``ids``: bumped when a product listed in one
    of them changes what its facets count (type, facet price band, details, variants'
    options)."""
    return tuple(f"faceted:{i}" for i in sorted(set(ids)))


def faceted_part_scope(ids, parts):
    """``("faceted:<id>:<part>", ...)`` of the categories ``ids`` and issue-decade ``parts``
    (``catalog/listings/facet_parts.py``): a part of their facet counts, bumped with
    ``faceted:<id>`` by a write of a product of that part (before or after)."""
    return tuple(f"faceted:{i}:{p}" for i in sorted(set(ids)) for p in sorted(set(parts), key=str))


def relisted_scope(ids):
    """``("relisted:<id>", ...)`` of the categories ``ids``: bumped by a category write that
    changes which products they list (a subtree moved out from below them or in), so that
    the facet counts kept per issue decade are counted again; a product's own write bumps
    the decades it changes instead (``faceted_part_scope``)."""
    return tuple(f"relisted:{i}" for i in sorted(set(ids)))


def listing_scope(category_ids=None):
    """The scope of a listing of products: of the categories ``category_ids`` (their
    ``category:`` and ``cards:``: cold with any write of a product listed in them), or (None)
    of a listing across categories (search, deals...): ``(PRODUCTS,)``."""
    if category_ids is None:
        return (PRODUCTS,)
    return category_scope(category_ids) + cards_scope(category_ids)


def facets_scope(category_ids):
    """The scope of the facet counts of the categories ``category_ids`` without a price range:
    their ``category:`` (which products they list) and ``faceted:`` (what those hold)."""
    return category_scope(category_ids) + faceted_scope(category_ids)


def listing_page_scope(category_id):
    """What a category page of ``category_id`` (an ObjectId) reads besides its category's
    scope, in any sort (``prefetch``): its cards' (with a price range, or facets chosen and a
    sort other than newest; else the versions of the products it shows, remembered for the
    page), its facet counts', its
    orders by title and issue date, its relisting (the kept facet and order counts' stamp)."""
    ids = [category_id]
    return (cards_scope(ids) + faceted_scope(ids) + order_scope(ids, "title") + order_scope(ids, "issued")
            + relisted_scope(ids))


def category_page_scope(category):
    """The scope of what a category page's heading shows of ``category`` (a Category with
    ``ancestors``): its own version (its name, its subcategories) and its ancestors' names
    (its breadcrumbs); not its cards', so that an edit of one of its products does not
    render the heading again."""
    return category_scope([category.pk]) + names_scope(a.pk for a in category.ancestors)


def open_scope(read_versions, page=None, read_family=None):
    """Open a request's cache scope; ``read_versions(names)`` returns ``{name: token}`` of the
    version documents among ``names`` (one round trip), the epoch always included. ``page``
    (the request's path and query) names the scopes the last request of it read after its
    first read (``close_scope`` remembers them), read with its first. ``read_family(prefix)``
    returns ``{name: token}`` of every version document whose name starts with ``prefix``
    (one round trip), for ``cached(..., family=...)``; without it such a value is kept from
    its page's second request only. Returns the token ``close_scope`` takes."""
    return _scope.set({"read": read_versions, "tokens": {}, "page": page, "wanted": set(),
                       "read_family": read_family, "families": {}})


def close_scope(token, answered=True):
    """Close the scope ``open_scope`` opened (``token`` is what it returned); when the request
    read versions after its first read, remember all it read for its page, so that the next
    request of the page reads them in one round trip. ``answered`` False (an error or a
    refused request: a hostile query string) remembers nothing for it."""
    state = _scope.get()
    try:
        if answered and state and state["wanted"] and state["page"] is not None:
            names = ({*state["tokens"], *state["wanted"]} - set(BASE) - state.get("transient", set()))
            remember("page-scopes", state["page"], tuple(sorted(names)))
    finally:
        _scope.reset(token)


def prefetch(names):
    """Read the scopes ``names`` with the request's first read of versions, if it has not
    happened yet (a page that knows early what it will need: a category page its listing's
    scopes); nothing outside a request or once the versions were read."""
    state = _scope.get()
    if state is not None and not state["tokens"]:
        state["prefetch"] = state.get("prefetch", set()) | set(names)


def versions(names):
    """The tokens (a tuple of str, in the order of ``names``) of the scopes ``names`` for the
    current request, read at most once each per request; the first read also reads ``BASE``
    and the scopes the page read last time. None outside a request (nothing is cached then)."""
    state = _scope.get()
    if state is None:
        return None
    watch = state.get("watch")
    if watch is not None:  # a page being kept whole (``watch_page``) depends on these
        watch["used"].update(names)
    tokens = state["tokens"]
    missing = [n for n in names if n not in tokens]
    families = state.get("families")
    if missing and families:  # names of a family read whole (``read_family``): no round trip
        for name in missing:
            prefix = next((p for p in families if name.startswith(p)), None)
            if prefix is not None:
                tokens[name] = families[prefix].get(name, UNSET)
        missing = [n for n in names if n not in tokens]
    if missing:
        if tokens:
            ask = sorted(set(missing))
        else:
            page = hint("page-scopes", state["page"]) if state["page"] is not None else None
            ask = sorted({*missing, *BASE, *(page or ()), *state.get("prefetch", ())})
        read = state["read"](ask)
        tokens.update({n: read.get(n, UNSET) for n in ask})
    return tuple(tokens[n] for n in names)


def family_versions(prefix, read):
    """``{name: token}`` of every version whose name starts with ``prefix`` (the bumped ones;
    the others are ``UNSET``): in a request, read once (``read_family``) and kept for the
    request, as ``cached(..., family=...)`` reads them; outside one (or without
    ``read_family``), ``read(prefix)`` (``CatalogVersion.objects.family``: one round trip)."""
    state = _scope.get()
    if state is None or state.get("read_family") is None:
        return read(prefix)
    if prefix not in state["families"]:
        state["families"][prefix] = state["read_family"](prefix)
    return state["families"][prefix]


def versions_now(names, read):
    """The tokens (a tuple of str, in the order of ``names``) of the scopes ``names``: in a
    request ``versions(names)``; outside one ``read(names)`` (``CatalogVersion.objects.tokens``:
    one round trip), ``UNSET`` for a scope never bumped."""
    found = versions(names)
    if found is not None:
        return found
    read_tokens = read(list(names))
    return tuple(read_tokens.get(n, UNSET) for n in names)


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
        state.get("families", {}).clear()


def cache_key(kind, key, tokens):
    """The cache key of ``kind`` (a short name, e.g. ``"listing"``) and ``key`` (any value
    whose ``repr`` is stable: tuples, strings, ints, ObjectIds, dicts built in a fixed
    order) at the scope tokens ``tokens`` (a tuple, the epoch's first):
    ``"catalog:<kind>:<sha1 of repr((key, tokens))>"``."""
    digest = hashlib.sha1(repr((key, tokens)).encode(), usedforsecurity=False).hexdigest()
    return f"catalog:{kind}:{digest}"


def cached(kind, key, compute, scope, shown=None, family=None):
    """``compute()``'s value, from the cache when the versions of ``scope`` (a tuple of
    scope names, see the module docstring) are those it was stored under.

    ``compute`` returns something the cache can pickle (plain documents:
    dicts, lists, ObjectIds, datetimes; never stock). Outside a request it
    is simply called. A missing value is computed, stored for
    ``CATALOG_CACHE_SECONDS`` and returned; a computed None (no such
    product or category) is returned but never stored, so that requests for
    random SKUs and slugs cannot fill the cache and evict useful entries.

    ``shown(value)``, when given, names the further scopes the value depends on that
    only the value tells (the price bands a page sorted by price spans, the products a
    page of deals shows, ``product:<sku>``...): they are remembered for ``key`` (``hint``)
    and read with the request's other versions the next time; a value whose ``shown``
    differs from what was remembered is computed again. A value is kept only under
    versions read *before* it was computed (a write bumps after it writes, so a version
    read after the computation may already name a write the value missed):

    - with ``family`` (a prefix of scope names, e.g. ``"prices:<id>:"``, that every name
      ``shown`` can give starts with), a value to compute is computed after one read of
      every version of the family (``read_family``, once per request), so it is kept at
      once under the scopes it shows: its page's next request finds it;
    - without (the products a page shows, which no family bounds), it is kept only
      once the scopes it names were read before it was computed: from its page's second
      request, found from the third.
    """
    if shown is None:
        return _cached(kind, key, compute, scope)
    remembered = hint(f"shown:{kind}", key) or ()
    state = _scope.get()
    if family is not None and state is not None and state.get("read_family") is not None:
        value = _cached_in_family(kind, key, compute, scope, shown, family, remembered, state)
    else:
        value = _cached(kind, (key, remembered), compute, (*scope, *remembered),
                        valid=lambda value: tuple(shown(value)) == remembered)
    names = tuple(shown(value)) if value is not None else remembered
    if names != remembered:
        remember(f"shown:{kind}", key, names)
        if state is not None:  # read with the page's next request's first read
            state["wanted"].update(names)
    return value


def _cached_in_family(kind, key, compute, scope, shown, family, remembered, state):
    """``cached`` with ``shown`` and ``family`` in a request (``state``): the value kept under
    ``(key, remembered)`` when its ``shown`` is still ``remembered``; else computed after the
    family's versions were read (one round trip, once per request) and kept under
    ``(key, shown(value))`` at versions all read before the computation."""
    names = (EPOCH, *scope, *remembered)
    if state["tokens"] and any(n not in state["tokens"] for n in names):
        state["wanted"].update(names)
    store = caches[settings.CATALOG_CACHE]
    value = store.get(cache_key(kind, (key, remembered), versions(names)), _MISSING)
    if value is not _MISSING and tuple(shown(value)) == remembered:
        return value
    if family not in state["families"]:
        state["families"][family] = state["read_family"](family)
    # The tokens read before ``compute`` (the scope's, the family's), kept aside: a bump
    # during it (``forget_version``) must not have the value kept under later ones.
    read, in_family = dict(state["tokens"]), state["families"][family]
    unkept = state.get("unkept", 0)
    value = compute()
    shows = tuple(shown(value)) if value is not None else None
    if shows is not None and all(n.startswith(family) for n in shows) and state.get("unkept", 0) == unkept:
        tokens = tuple(read[n] if n in read else in_family.get(n, UNSET) for n in (EPOCH, *scope, *shows))
        store.set(cache_key(kind, (key, shows), tokens), value, settings.CATALOG_CACHE_SECONDS)
    else:
        state["unkept"] = state.get("unkept", 0) + 1
    return value


def cached_many(kind, keys, scope_of, compute_missing, remember=True, keep=None):
    """``{key: value}`` of ``keys``, each cached as ``cached(kind, key, ..., scope_of(key))``
    would, but read together: the versions of all their scopes in one read (none once read),
    the values in one ``get_many``, and those missing computed together by
    ``compute_missing(missing keys)`` (a ``{key: value}`` with every one of them) and stored in
    one ``set_many``. Outside a request, ``compute_missing(keys)``. ``remember``: the versions
    not read with the request's first read are read with the page's next request's first
    (False: for a value read only when another is cold, which would cost every request of
    the page those versions). ``keep(computed)``: the keys of the computed values to store
    (default all of them)."""
    keys = list(keys)
    state = _scope.get()
    if state is None:
        return compute_missing(keys)
    scopes = {key: (EPOCH, *scope_of(key)) for key in keys}
    wanted = sorted({name for names in scopes.values() for name in names})
    if not remember:
        state.setdefault("transient", set()).update(n for n in wanted if n not in state["tokens"])
    elif state["tokens"] and any(n not in state["tokens"] for n in wanted):
        state["wanted"].update(wanted)
    tokens = dict(zip(wanted, versions(wanted)))
    names = {key: cache_key(kind, key, tuple(tokens[n] for n in scopes[key])) for key in keys}
    store = caches[settings.CATALOG_CACHE]
    found = store.get_many(list(names.values()))
    values = {key: found[names[key]] for key in keys if names[key] in found}
    missing = [key for key in keys if key not in values]
    if missing:
        computed = compute_missing(missing)
        kept = set(missing) if keep is None else set(keep(computed)) & set(missing)
        store.set_many({names[key]: computed[key] for key in missing if key in kept}, settings.CATALOG_CACHE_SECONDS)
        values.update(computed)
    return values


def _cached(kind, key, compute, scope, valid=None):
    """``cached`` without ``shown``; ``valid(value)`` False: computed again, not kept."""
    state = _scope.get()
    if state is None:
        return compute()
    names = (EPOCH, *scope)
    if state["tokens"] and any(n not in state["tokens"] for n in names):
        # Versions the request's first read did not read: read now (one more round trip,
        # cheaper than computing what they key), and with the page's next request's first.
        state["wanted"].update(names)
    tokens = versions(names)
    store = caches[settings.CATALOG_CACHE]
    name = cache_key(kind, key, tokens)
    value = store.get(name, _MISSING)
    if value is _MISSING or (valid is not None and not valid(value)):
        unkept = state.get("unkept", 0)
        value = compute()
        # A value computed from a cached read that could not be kept (its ``shown`` scopes
        # not read yet) is not kept either: else the inner read would never be kept.
        if value is not None and (valid is None or valid(value)) and state.get("unkept", 0) == unkept:
            store.set(name, value, settings.CATALOG_CACHE_SECONDS)
        else:
            state["unkept"] = state.get("unkept", 0) + 1
    return value


def cached_with_listing(listing, kind, key, compute):
    """``cached(kind, key, compute, listing.scope)``: a value computed from ``listing`` (a
    ``catalog.listings.query.ProductQuery`` or subclass) and cold exactly when it is: the facet
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


# -- what a whole kept page depends on (``catalog/store/pages.py``) -----------------------


def watch_page():
    """Start recording, for the rest of the current request, what its page depends on: the
    scopes whose versions it asks for (``versions``), the values kept a while without a version
    that it shows (``note_kept``) and the moment it changes by itself (``changes_at``). Returns
    the record, a dict that ``page_dependencies`` reads; None outside a request."""
    state = _scope.get()
    if state is None:
        return None
    state["watch"] = {"used": set(), "kept": {}, "until": None, "unkept": state.get("unkept", 0)}
    return state["watch"]


def page_dependencies(watch):
    """``(names, tokens, kept, until)`` of what the page recorded by ``watch`` (of ``watch_page``)
    showed: the scope names it read (a sorted tuple) with their tokens as read in this request,
    the values kept without a version (``{cache key: value}``) and the moment it changes by
    itself (aware UTC, or None). None when the page cannot be kept under them: a value it showed
    was computed but not kept (its scopes were not all read before it), or a version was
    forgotten during it (``forget_version``). Ends the recording."""
    state = _scope.get()
    if state is None or watch is None or state.pop("watch", None) is not watch:
        return None
    if state.get("unkept", 0) != watch["unkept"]:
        return None
    names = tuple(sorted(watch["used"]))
    tokens = state["tokens"]
    if any(n not in tokens for n in names):
        return None
    return names, tuple(tokens[n] for n in names), dict(watch["kept"]), watch["until"]


def note_kept(name, value):
    """Tell the page being kept whole (``watch_page``) that it shows ``value``, kept in the
    catalog cache under the key ``name`` for a while without a version (e.g. a listing's
    in-stock count): the page is served again only while that key holds that value. Nothing
    when no page is watched."""
    state = _scope.get()
    watch = state.get("watch") if state is not None else None
    if watch is not None:
        watch["kept"][name] = value


def changes_at(moment):
    """Tell the page being kept whole (``watch_page``) that what it shows changes by itself at
    ``moment`` (aware UTC; e.g. an offer starting or ending): it is served again only before
    then. Nothing when no page is watched or for None."""
    state = _scope.get()
    watch = state.get("watch") if state is not None else None
    if watch is not None and moment is not None:
        watch["until"] = moment if watch["until"] is None else min(watch["until"], moment)
