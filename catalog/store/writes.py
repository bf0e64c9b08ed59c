"""The one owner of catalog writes: what every write to ``categories`` or ``products`` must
also do, done here and nowhere else.

What a catalog write must also do:

- a product's validation (``clean_product``: its details against its
  product type, ``catalog/products/attributes.py``);
- a product's derived fields: ``skus`` and a product with variants' pricing
  (``catalog/products/variants.py``), ``title_lower`` (the prefix search's copy),
  ``keywords`` (the search words) and ``listed_in`` (its categories and
  their ancestors) (``derive_product_fields``, ``prepare_product``);
- the kept counts of the categories whose listing it changes, marked
  before and recounted after (``ListingCount.objects.changing``);
- the kept facet counts (``FacetCount.objects``), by the versions it bumps, and
  forgotten when product types change (``product_types_changed``);
- the bump, once it is done, of the versions of what it changed, and only
  those (``catalog/store/cache.py``): a product write bumps its product, the
  cards of the categories it is listed in before and after, and of those
  what its change moves (their listing when it joins or leaves them, their
  order by title, date or price, their facet counts), and the
  cross-category listings; a category write its category, the parents whose children
  change, the subtree it moves, the names below it when renamed, the tree,
  and the navigation when a category at depth 0 or 1 changes. A stock change
  is not a catalog write and bumps nothing. A write naming more than
  ``CATALOG_VERSIONS_BUMP_LIMIT`` scopes (a catalog load) bumps the epoch instead
  (``bounded_product_scopes``).

The write paths, each through here:

- ``Product.save`` (the admin's product form, the API, ``Product.objects.create``):
  ``prepare_product`` then ``products_changing``;
- ``Product.writes.sync`` (the catalog loaders, imports, feeds) and
  ``Product.writes.delete_all``: ``derive_product_fields`` and
  ``products_changing`` / ``catalog_reset``;
- ORM deletes of a product (the admin's delete, a queryset's delete): the
  signal receivers ``product_deleting`` / ``product_deleted``
  (``catalog/receivers.py``);
- ``Category.objects`` create, create_many, rename, move, delete, delete_all:
  ``categories_changed`` / ``catalog_reset``; ``Product.writes.relist_under``
  (a move's relisting) runs inside ``Category.writes.move``;
- ORM saves and deletes of a category (not the admin's, which uses the
  manager): ``category_saved`` from the receivers.

A raw ``QuerySet.update()`` of products or categories bypasses all this:
the shop makes none.
"""

import contextlib
import datetime

from django.conf import settings

from catalog.store.cache import (EPOCH, ISSUED, NAVIGATION, PRODUCTS, SAVINGS_KEPT, SEARCH_KEPT, TREE, cards_scope,
                     category_scope, faceted_part_scope, faceted_scope, names_scope, order_scope,
                     price_count_scope, prices_scope, product_scope, relisted_scope, savings_part_scope,
                     savings_scope, titles_scope, words_scope)
from catalog.listings.facets import band_of, facet_fields
from catalog.listings.facet_parts import bands_matched, issue_part, shift_parts
from catalog.listings.search_shift import shift_words
from catalog.products.keywords import KEYWORD_SOURCES, document_keywords
from catalog.products.keywords import _values as keyword_source_values
from catalog.store.siblings import catalog_model
from catalog.listings.search import lower_title
from catalog.tree.nodes import listed_in
from catalog.fields import as_stored
from catalog.products.variants import _get, apply_to_document, apply_to_product, variant_in
from core.mongo.documents import model_to_document


def _versions():
    return catalog_model("CatalogVersion").objects


def _counts():
    return catalog_model("ListingCount").objects


# -- products ---------------------------------------------------------------------------


def clean_product(product):
    """Validate ``product`` (a ``Product`` about to be saved) against its product type: the
    one place every product write path calls the types' validation from
    (``Product.clean_details``: ``catalog.products.attributes.clean_details``, one cached read of the
    type). Sets its normalised ``details``; raises ``django.core.exceptions.ValidationError``
    and changes nothing when they do not fit the type. ``Product.writes.sync`` checks its
    documents the same way (``ProductType.objects.clean_products``)."""
    product.details = product.clean_details()
    product._stored_codes = frozenset(product.details)  # what this save stores


def derive_product_fields(document, ancestors):
    """Set a product ``document``'s derived fields from what it holds: ``skus`` and, with
    variants, its pricing (its cheapest variant's: ``catalog/products/variants.py``), ``title_lower``,
    ``keywords``, ``listed_in`` (``ancestors``: ``{category id: [ancestor ids]}`` of its
    categories, ``CategoryManager.ancestor_ids``) and ``variant_in`` (``variants.variant_in``).
    Returns ``document``."""
    apply_to_document(document)
    document["title_lower"] = lower_title(document.get("title"))
    document["keywords"] = document_keywords(document)
    document["listed_in"] = listed_in(document.get("categories") or [], ancestors)
    document["variant_in"] = variant_in(document["listed_in"], document.get("variants"))
    return document


def prepare_product(product, using="default"):
    """Before ``Product.save``: ``clean_product``, then the derived fields (one read of its
    categories' ancestors). Returns ``product``."""
    clean_product(product)
    apply_to_product(product)  # skus, and the cheapest variant's pricing
    product.title_lower = lower_title(product.title)
    product.listed_in = catalog_model("Category").objects.listed_in(product.categories)
    product.variant_in = variant_in(product.listed_in, product.variants)
    product.keywords = document_keywords(model_to_document(product, using))
    return product


def product_scopes(changes):
    """The scope names a product write bumps: ``changes`` is a list of ``(before, after)``
    pairs, each None or the product's ``facts`` (as stored before the write, as written).

    Of each product: its page and card (``product:<sku>``) and ``products``; of the
    categories it is listed in before and after, their cards (``cards:``),
    their listing (``category:``) when it joins or leaves it or changes its SKU
    (a category page's order keeps the SKUs whose versions key its cards), the order by
    title or issue date (``order-title:``, ``order-issued:``) when it
    changes those, the price bands from the old retail price to the new
    (``prices:``) when it changes, the narrower price band and the title window
    of the old and new price or title (``prices:<id>:n<band>``, ``titles:``)
    when they change or the product joins or leaves (the versions of the kept
    order counts), and their facet counts (``faceted:``)
    when what they count changes (type, facet price band, details, variants'
    options); across categories, what decides which products those pages
    show: the words of those whose searchable text, faceted values or SKU change
    (a search's facet counts and order are keyed by its words), the old and the new
    ``pct_savings`` of those whose saving changes (the deals are counted and
    read per saving), the issue dates."""
    names = set()
    for before, after in changes:
        sides = [side for side in (before, after) if side]
        if not sides:
            continue
        listed = [i for side in sides for i in side.get("listed_in") or []]
        names.update(product_scope(side["sku"] for side in sides))
        names.update(cards_scope(listed))
        names.add(PRODUCTS)
        one_sided = before is None or after is None

        def changed(fact):
            return one_sided or before.get(fact) != after.get(fact)

        # The categories it joins or leaves list other products: their ``category:``, in
        # every key of theirs; those it stays in, what its change moves.
        if one_sided:
            joined, stayed = set(listed), set()
        else:
            old, new = set(before.get("listed_in") or []), set(after.get("listed_in") or [])
            joined, stayed = old ^ new, old & new
        names.update(category_scope(joined))
        # The kept order counts (``OrderCount.objects``) of its price bands and title windows,
        # before and after: of those it joins or leaves, and of those it stays in when it
        # changes the price or the title.
        names.update(price_count_scope(joined, [side.get("retail") for side in sides]))
        names.update(titles_scope(joined, [side.get("title") for side in sides]))
        if changed("title"):
            names.update(order_scope(stayed, "title"))
            names.update(titles_scope(stayed, [side.get("title") for side in sides]))
        if changed("issued"):
            names.update(order_scope(stayed, "issued"))
        if changed("issued") or changed("sku"):  # the newest products' order keeps their SKUs
            names.add(ISSUED)
        if changed("sku"):  # a category page's order keeps its SKUs, whose versions key its cards
            names.update(category_scope(stayed))
        if changed("retail"):
            retails = [side.get("retail") for side in sides]
            names.update(prices_scope(stayed, min(retails, key=_cents), max(retails, key=_cents)))
            names.update(price_count_scope(stayed, retails))
        parts = [issue_part(side.get("issued")) for side in sides]
        # The decades of its facet counts: of those it joins or leaves, and of those it
        # stays in when it changes what they count.
        names.update(faceted_part_scope(joined, parts))
        if changed("faceted") or changed("issued"):
            names.update(faceted_scope(stayed))
            names.update(faceted_part_scope(stayed, parts))
        if changed("text") or changed("faceted") or changed("sku"):
            # A search's order keeps its products' SKUs (its cards are read by them).
            names.update(words_scope(w for side in sides for w in side.get("keywords") or []))
        if changed("pct") or changed("issued") or changed("sku"):  # a deals page's order keeps SKUs
            for side in sides:
                names.update(savings_scope([side.get("pct") or 0]))
                names.update(savings_part_scope(side.get("pct") or 0, [issue_part(side.get("issued"))]))
    return tuple(sorted(names))


def _cents(retail):
    """A retail price as a number to compare (None and non-numbers as 0)."""
    return retail if isinstance(retail, (int, float)) and not isinstance(retail, bool) else 0


def facts(document):
    """What ``product_scopes`` needs of a product ``document`` (a dict as stored, with its
    derived fields): ``{"sku", "listed_in", "keywords", "pct", "issued", "title", "retail",
    "text", "faceted"}``; ``text`` is its searchable text (``KEYWORD_SOURCES``), which a
    search ranks by, ``faceted`` what its facets count (type, facet price band, details,
    variants' options)."""
    details = as_stored(dict(document.get("details") or {}))
    pricing = document.get("pricing") or {}
    return {"sku": document.get("sku"), "listed_in": list(document.get("listed_in") or []),
            "keywords": list(document.get("keywords") or []),
            "pct": int(pricing.get("pct_savings") or 0),
            "issued": _utc_naive((document.get("details") or {}).get("issue_date")),
            "title": document.get("title"), "retail": pricing.get("retail"),
            "text": repr([keyword_source_values(document, path) for path in KEYWORD_SOURCES]),
            # the band counted (``band_of``: no price counts in the last) and whether a band's
            # filter matches it (a search's summary parts, ``search_summary``: no price, none)
            "faceted": repr((document.get("type"), band_of(pricing.get("retail")),
                             bool(bands_matched(pricing.get("retail"))),
                             sorted((k, repr(v)) for k, v in details.items()),
                             [dict(_get(v, "options") or {}) for v in document.get("variants") or []]))}


def _utc_naive(moment):
    """A datetime as the server returns it (UTC, naive), whether given aware or naive."""
    if isinstance(moment, datetime.datetime) and moment.tzinfo is not None:
        return moment.astimezone(datetime.UTC).replace(tzinfo=None)
    return moment


#: What ``facts`` reads of a stored product (a projection).
FACTS_FIELDS = {"sku": 1, "listed_in": 1, "keywords": 1, "type": 1, "title": 1, "pricing.pct_savings": 1,
                "pricing.retail": 1, "details": 1, "variants.options": 1,
                **{path: 1 for path in KEYWORD_SOURCES if not path.startswith("details.")}}


def bounded_product_scopes(changes):
    """``product_scopes(changes)``, unless they are more than ``settings.CATALOG_VERSIONS_BUMP_LIMIT``
    (a first load of the demo catalog names about 4,900: each product's page, its categories'
    cards and every word it adds to searches, each bumped by an upsert of about 2.5 ms on the
    local server). Then the epoch, which every cached read's key carries, and the relisting of
    the categories the products are listed in before and after, under which their kept facet
    counts are stamped (``catalog/listings/facet_parts.py``; as many names as categories), and
    ``savings-kept``, under which the deals' counts kept per saving are stamped
    (``SavingsCount.objects``), and ``search-kept``, the searches' kept summaries'
    (``SearchSummary.objects``): one write, and every cached read of the catalog is read again
    once."""
    names = product_scopes(changes)
    if len(names) <= settings.CATALOG_VERSIONS_BUMP_LIMIT:
        return names
    listed = {i for pair in changes for side in pair if side for i in side.get("listed_in") or []}
    return (EPOCH, SAVINGS_KEPT, SEARCH_KEPT, *relisted_scope(listed))


def relisted_categories(changes):
    """The categories whose listing ``changes`` (as for ``product_scopes``) add or remove
    products: both sides' ``listed_in`` of each pair whose two sides differ."""
    relisted = set()
    for before, after in changes:
        old = set((before or {}).get("listed_in") or [])
        new = set((after or {}).get("listed_in") or [])
        if before is None or after is None or old != new:
            relisted |= old | new
    return relisted


@contextlib.contextmanager
def products_changing(changes, recount=True, documents=None):
    """Around a write of products: ``changes`` as for ``product_scopes``. Marks before and
    recounts after the kept counts of the categories it relists (``ListingCount.objects.changing``:
    3 round trips, none when no listing changes; ``recount=False`` skips them for a bulk
    load that recounts everything at its end), then bumps the versions of what changed (one
    write), also when the write raised. ``changes`` None: a bulk load into an empty
    catalog, which bumps nothing (its caller bumps the epoch at its end: ``catalog_reset``)
    and marks nothing. ``documents``: ``(before, after)`` of one product's whole write (as
    stored, ``FACTS_FIELDS`` at least; None: not one product's) whose change of what its
    facets count (in categories it stays in) moves their kept counts rather than leaving them
    to be counted again (``catalog.listings.facet_parts.shift_parts``: 3 round trips
    before the write, the facet fields' product types, the versions and their claim; 3 after,
    the final claim, the kept parts and their move; when it changes them), and whose change of
    what a search shows of it moves the kept summaries of its words' searches
    (``catalog.listings.search_shift.shift_words``: 2 round trips before the write, the words'
    versions and their summaries' stamps, and 1 more, the claim, when some are kept; 3 after,
    as for the facets)."""
    bump = changes is not None
    changes = list(changes or ())
    shifts = [shift for shift in (_facet_shift(changes, documents), _search_shift(changes, documents))
              if shift is not None] if bump and documents is not None else []
    written = False
    try:
        with _counts().changing(relisted_categories(changes) if recount else ()):
            yield
        written = True
    finally:
        if bump:
            names = bounded_product_scopes(changes)
            moving = [shift for shift in shifts if written and shift.names <= set(names)]
            held = set().union(*(shift.names for shift in moving))
            _versions().bump(tuple(n for n in names if n not in held))
            for shift in moving:
                shift.finish()


def _facet_shift(changes, documents):
    """``shift_parts`` of one product's write whose facet counts' parts its bump names (the
    decades it changes in the categories it stays in), or None."""
    before, after = documents
    if len(changes) != 1 or before is None or after is None:
        return None
    names = set(bounded_product_scopes(changes))
    stayed = set(before.get("listed_in") or []) & set(after.get("listed_in") or [])
    parts = {issue_part((side.get("details") or {}).get("issue_date")) for side in (before, after)}
    if not stayed or not set(faceted_part_scope(stayed, parts)) <= names:
        return None
    return shift_parts(before, after, facet_fields())


def _search_shift(changes, documents):
    """``shift_words`` of one product's write whose bump names its words (a change of what a
    search shows of it), or None."""
    before, after = documents
    if len(changes) != 1 or before is None or after is None:
        return None
    words = {*(before.get("keywords") or ()), *(after.get("keywords") or ())}
    if not words or not set(words_scope(words)) <= set(bounded_product_scopes(changes)):
        return None
    return shift_words(before, after, facet_fields())


def products_written(changes):
    """After a bulk write of products made without ``products_changing`` (the imports, which
    mark and recount the kept counts themselves): bump the versions of what ``changes``
    (``(before, after)`` pairs of ``facts``, None for a side that does not exist) changed
    (one write, none for no changes)."""
    names = bounded_product_scopes(list(changes))
    if names:
        _versions().bump(names)


def product_shown_changed(*documents):
    """After a write that changes only what products' pages and cards show (their images):
    bump their pages and the cards of the categories they are listed in (one write). ``documents``: each
    with its ``sku`` and ``listed_in``."""
    names = {PRODUCTS}
    for document in documents:
        names.update(product_scope([document["sku"]]))
        names.update(cards_scope(document.get("listed_in") or []))
    _versions().bump(tuple(sorted(names)))


@contextlib.contextmanager
def relisting(category_ids):
    """Around a write that relists products without changing them otherwise (a category's
    move, ``Product.writes.relist_under``): the kept counts of ``category_ids`` marked before
    and recounted after (3 round trips). The move bumps the versions."""
    with _counts().changing(category_ids):
        yield


def product_facts(product, using="default"):
    """``facts`` of a ``Product`` instance, for ``products_changing``."""
    return facts(model_to_document(product, using))


def product_deleting(product):
    """Before an ORM delete of ``product``: mark its categories' kept counts (one write).
    Returns what ``product_deleted`` needs."""
    return _counts().mark(product.listed_in or [])


def product_deleted(product, moment):
    """After an ORM delete of ``product`` (``moment``: ``product_deleting``'s): recount its
    categories and bump its versions."""
    try:
        if moment is not None:
            _counts().settle(product.listed_in or [], moment)
    finally:
        _versions().bump(product_scopes([(product_facts(product), None)]))


# -- categories -------------------------------------------------------------------------


def category_write_scopes(changed=(), renamed=(), depths=(), relisted=()):
    """The scope names a category write bumps: the categories ``changed`` (ids whose page
    shows something new: the node, its parents, a moved subtree), the breadcrumb names of
    ``renamed`` (ids), the products listed in ``relisted`` (ids: those above a moved
    subtree, before and after: their kept facet counts), the tree, and the navigation when
    one of ``depths`` (the depths, before and after, of the categories written) is 0 or 1."""
    names = {*category_scope(changed), *names_scope(renamed), *relisted_scope(relisted), TREE}
    if any(depth <= 1 for depth in depths):
        names.add(NAVIGATION)
    return tuple(names)


def categories_changed(changed=(), renamed=(), depths=(), relisted=()):
    """After a category write: bump ``category_write_scopes(changed, renamed, depths, relisted)``
    (one write)."""
    return _versions().bump(category_write_scopes(changed, renamed, depths, relisted))


def category_saved(category):
    """After an ORM save or delete of ``category`` (a path the shop's own code does not take:
    the admin goes through ``Category.writes``): bumps it, its parent, every category below it
    (one read) and the names below it."""
    below = [d["_id"] for d in catalog_model("Category").objects.collection.find(
        {"ancestors._id": category.pk}, {"_id": 1})]
    ancestors = [a.pk for a in category.ancestors or []]
    changed = [category.pk, *below, *ancestors[-1:], *([category.parent_id] if category.parent_id else [])]
    categories_changed(changed, renamed=[category.pk], depths=[len(ancestors)], relisted=[*changed, *ancestors])


def catalog_reset():
    """After a write that empties a collection of the catalog (``delete_all``) or a bulk load
    that bumped nothing (``populatedb``): bump the epoch, every cached read, and the deals'
    counts kept per saving (``savings-kept``) and the searches' kept summaries
    (``search-kept``; one write)."""
    _versions().bump((EPOCH, SAVINGS_KEPT, SEARCH_KEPT))


def product_types_changed():
    """After a write of product types (a type saved or deleted, with the products it
    rewrites): forget every kept facet count (``FacetCount.objects``: a type's facet
    attributes or its choices' values may have changed, and those counts are not keyed by
    the epoch), then bump the epoch (two writes)."""
    catalog_model("FacetCount").objects.forget_all()
    _versions().bump()
