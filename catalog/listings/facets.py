"""Facets of a listing: what a shopper may choose (``?genre=Rock&genre=Metal&price=5-10&in_stock=1``),
checked against what the listing holds, and the filters those choices make.

A facet is the product type (``type``), a facet attribute of the product
types (``details.<code>``: ``ProductType.objects.facet_attributes``), a
price band (``PRICE_BANDS`` on ``pricing.retail``, cents) or "in stock".
Choices are OR within a facet and AND across facets. A parameter that names
no facet is not a choice (``sort``, ``page``...); a value that the listing
does not hold (or a band that does not exist) is dropped: the page shows as
if it had not been asked. A chosen value reaches the database only as a
member of an ``$in`` list of known values (strings the listing's own
products hold): never as a pattern or an operator.

The counts come from ``Product.facets.facet_counts``
(``catalog/listings/facet_manager.py``); ``facet_panel`` puts the parsing, the
counts and the listing's extra filters together for a view.
"""

from dataclasses import dataclass, field

from catalog.products.attributes import attr, first_facet_attributes
from catalog.store.siblings import catalog_model
from catalog.store.cache import cached, prefetch

#: The price bands: ``(URL value, label, lowest cents, highest cents excluded or None)``.
PRICE_BANDS = [
    ("0-5", "Under $5", 0, 500),
    ("5-10", "$5 to $10", 500, 1000),
    ("10-20", "$10 to $20", 1000, 2000),
    ("20-", "$20 and over", 2000, None),
]
BAND_KEYS = [band[0] for band in PRICE_BANDS]
#: The product type as a facet (a top-level field, not a ``details`` attribute).
TYPE_FACET = {"code": "type", "label": "Type", "field": "type", "many": False}
#: Query parameters that are never a facet attribute's (an attribute with such a code is
#: not offered as a facet).
RESERVED = frozenset({"page", "sort", "q", "min_price", "max_price", "price", "in_stock", "type"})
#: At most this many values of one facet are read from a URL, each at most this long.
MAX_CHOSEN, MAX_VALUE_LENGTH = 50, 200
#: A facet shows its values with the most products first, this many of them (and any chosen).
SHOWN_VALUES = 20


def _types():
    # By name (catalog.store.siblings): catalog.models imports the listings' managers, which
    # import this module.
    return catalog_model("ProductType").objects


def facet_fields():
    """The facets a listing may offer: ``[{code, label, field, many, types}]``, the product type
    first, then every product type's facet attributes in display order: ``details.<code>``,
    or for a variant attribute ``variants.options.<code>`` (a product with variants holds
    its values there, one per variant); ``many``: the field holds a list (a multiple
    choice, text with ``many``, a variant attribute); ``types``: the names of the product
    types that have it (all of them for the type). Cached with the catalog's epoch, which a
    type's save bumps: a request reads a list of dicts, not the types' models."""
    return cached("facet-fields", (), _facet_fields, scope=())


def _facet_fields():
    # The types are built once (``by_names``: one model each), not once per type asked
    # about: building them was most of a cold page's cost of this list (about 20 ms).
    types = _types()
    names = types.names()
    by_name = types.by_names(names)
    codes = {name: {attr(a, "code") for a in by_name[name].facet_attributes} for name in by_name}
    fields = [{**TYPE_FACET, "types": names}]
    for a in first_facet_attributes(by_name):
        code = attr(a, "code")
        if code in RESERVED or not code.isidentifier():
            continue
        variant = bool(attr(a, "variant"))
        fields.append({"code": code, "label": attr(a, "label") or code,
                       "field": f"variants.options.{code}" if variant else f"details.{code}",
                       "many": variant or attr(a, "kind") == "multichoice" or bool(attr(a, "many")),
                       "types": [name for name in names if code in codes.get(name, ())]})
    return fields


@dataclass
class Choice:
    """What a shopper chose: ``values`` ``{facet code: tuple of values}`` (sorted, no empty
    tuple), ``bands`` (a tuple of ``BAND_KEYS``, in their order) and ``in_stock`` (bool)."""

    values: dict = field(default_factory=dict)
    bands: tuple = ()
    in_stock: bool = False

    def __bool__(self):
        return bool(self.values or self.bands or self.in_stock)

    def key(self):
        """A stable, hashable form of the choice (for cache keys)."""
        return (tuple(sorted(self.values.items())), self.bands, self.in_stock)


def requested(params, fields):
    """The choice a query string asks for (``params``: a QueryDict), before it is checked
    against the listing: values of the ``fields`` (``facet_fields()``) that are strings of at
    most ``MAX_VALUE_LENGTH`` characters (the first ``MAX_CHOSEN``), known price bands, and
    ``in_stock=1``. Anything else is ignored. Returns a ``Choice``."""
    values = {}
    for facet in fields:
        chosen = [v for v in params.getlist(facet["code"])[:MAX_CHOSEN]
                  if isinstance(v, str) and v and len(v) <= MAX_VALUE_LENGTH]
        if chosen:
            values[facet["code"]] = tuple(sorted(set(chosen)))
    bands = tuple(key for key in BAND_KEYS if key in params.getlist("price"))
    return Choice(values, bands, params.get("in_stock") == "1")


def known(choice, counts):
    """``choice`` with only the values the listing holds: ``counts`` is the listing's
    ``facet_counts`` without any choice (``{"values": {code: [(value, n), ...]}}``)."""
    values = {}
    for code, chosen in choice.values.items():
        held = {value for value, _n in counts["values"].get(code, ())}
        kept = tuple(v for v in chosen if v in held)
        if kept:
            values[code] = kept
    return Choice(values, choice.bands, choice.in_stock)


def band_of(cents):
    """The key (of ``BAND_KEYS``) of the price band of ``cents``, as the facet counts'
    ``$bucket`` puts it: a number from a band's lowest cents to the next band's; anything
    else (no price, not a number, under 0) in the last band, the ``$bucket``'s default."""
    if isinstance(cents, (int, float)) and not isinstance(cents, bool):
        for key, _label, low, high in PRICE_BANDS:
            if cents >= low and (high is None or cents < high):
                return key
    return PRICE_BANDS[-1][0]


def band_filter(bands):
    """The filter of the price ``bands`` (keys of ``BAND_KEYS``) on ``pricing.retail``: a
    range for one band, an ``$or`` of ranges for several."""
    ranges = []
    for key, _label, low, high in PRICE_BANDS:
        if key in bands:
            bounds = {"$gte": low}
            if high is not None:
                bounds["$lt"] = high
            ranges.append({"pricing.retail": bounds})
    return ranges[0] if len(ranges) == 1 else {"$or": ranges}


def choice_filters(choice, fields, sold_out=()):
    """``{facet code: filter}`` of ``choice``: ``{field: {"$in": values}}`` per facet,
    ``band_filter`` under ``"price"``, and under ``"in_stock"`` the products whose SKU is not
    among ``sold_out`` (the SKUs without units available: a list). In the order of
    ``fields``, then price, then in stock."""
    filters = {}
    for facet in fields:
        if facet["code"] in choice.values:
            filters[facet["code"]] = {facet["field"]: {"$in": list(choice.values[facet["code"]])}}
    if choice.bands:
        filters["price"] = band_filter(choice.bands)
    if choice.in_stock:
        filters["in_stock"] = {"sku": {"$nin": list(sold_out)}}
    return filters


def refine(stages, filters, fields):
    """The ``$match`` filters of a listing narrowed by ``filters`` (``choice_filters``):
    ``stages`` (a list of filters) then one per chosen facet.

    The first chosen facet of one value per product joins the first stage
    when that is a category's (``{listed_in: id, details.artist: {$in:
    [...]}}``), so that the facet's index (``listed_in`` then the field:
    ``catalog.store.indexes.facet_indexes``) serves it: SecantusDB 0.7.0b3 uses an
    (docs/local-server-differences.md: local-server difference 14)
    index only for one ``$match``'s conditions, and a real MongoDB merges
    consecutive ``$match`` stages into the same query. (A facet of a list,
    as ``details.genre``, has no such index: MongoDB cannot index two arrays
    of a document together, and ``listed_in`` is one.) ``fields`` as
    ``facet_fields()``. Returns a new list."""
    single = {f["field"] for f in fields if not f["many"]}
    stages, rest = [dict(s) for s in stages], list(filters.values())
    for index, extra in enumerate(rest if list(stages[0]) == ["listed_in"] else ()):
        (name, condition), = extra.items()
        if name in single:
            stages[0][name] = condition
            del rest[index]
            break
    return stages + rest


class Refined(list):
    """The ``$match`` filters of a listing narrowed by a choice (``refine``'s list), with what
    a listing may read its page by (``ListingManager.listing``): ``total`` (the products
    matching them all, the facet counts' total), ``stages`` (the listing's own filters, the
    first served by an index) and ``filters`` (the choice's, in order)."""

    def __init__(self, refined, total=None, stages=(), filters=()):
        super().__init__(refined)
        self.total, self.stages, self.filters = total, list(stages), list(filters)


@dataclass
class FacetPanel:
    """What ``templates/catalog/_facets.html`` shows: ``groups``, each ``{code, label,
    values: [{value, label, count, chosen}]}``; ``bands`` the price bands ``[{value,
    label, count, chosen}]``; ``in_stock`` ``{count, chosen}``; ``chosen`` (bool: anything
    chosen), ``hidden`` (``[(name, value)]``: the other parameters the form keeps) and
    ``params`` (``[(name, value)]``: the choice, for the other forms of the page to keep;
    a tuple, so it keys a cached fragment: only known values are in it) and ``key``: what
    the checkboxes show besides catalog data (the listing's filters, the choice, the
    in-stock count), the key of their ``catalog_fragment``, whose scope is ``scope`` (the
    listing's, ``catalog.store.cache.listing_scope``); ``variant_options`` the chosen values
    of variant attributes (``{code: tuple of values}``, ``variants.options.<code>``), whose
    matching variant the listing's cards show (``catalog.listings.cards.matching_variant``)."""

    groups: list
    bands: list
    in_stock: dict
    chosen: bool
    hidden: list
    params: tuple = ()
    key: tuple = ()
    scope: tuple = ()
    variant_options: dict = field(default_factory=dict)


def _values(pairs, chosen):
    shown = [(v, n) for v, n in pairs[:SHOWN_VALUES]]
    counted = dict(pairs)
    shown += [(v, counted.get(v, 0)) for v in chosen if v not in dict(shown)]
    return [{"value": v, "label": v, "count": n, "chosen": v in chosen} for v, n in shown]


def facet_panel(params, stages, manager, scope, keep=("sort", "q", "min_price", "max_price")):
    """The facets of a listing and its narrowed filters: ``(FacetPanel, stages)``.

    ``params`` is the request's QueryDict, ``stages`` the listing's
    ``$match`` filters (a list), ``manager`` ``Product.facets``, ``scope``
    the cache scope of its counts (``catalog.store.cache.facets_scope`` of a category
    page, ``listing_scope`` with a price range, a search's words); ``keep``
    the parameters the facet form carries along unchanged. The returned
    stages narrow the listing by the choice (a ``Refined``: ``refine``'s list with
    the count of what it matches). Costs, when cold: the counts without a
    choice (a category's: its kept counts, ``Product.facets.facet_counts``),
    with a choice in one facet on a category page the kept counts given that
    choice (``Product.facets.chosen_counts``: no read of products but, for "in
    stock", the few sold out), with more one aggregation over the listing's
    products; the SKUs sold out when "in stock" is chosen (one or two reads,
    kept as the stock shown: ``inventory.shown.shown_sold_out``), or else the
    in-stock count (``Product.facets.in_stock_count``: kept a few seconds).
    Warm: none (the sold-out SKUs when their kept entry has lapsed).
    """
    prefetch(scope)  # read with the product types' version, the request's first
    fields = facet_fields()
    everything = manager.facet_counts(stages, fields, {}, scope)
    choice = known(requested(params, fields), everything)
    sold_out = manager.sold_out_skus() if choice.in_stock else ()
    filters = choice_filters(choice, fields, sold_out)
    counts = everything
    if filters:
        # One facet chosen (and "in stock" or not) on a category page: from the kept counts.
        groups = [*choice.values.items(), *((("price", choice.bands),) if choice.bands else ())]
        counts = manager.chosen_counts(stages, fields, groups[0] if groups else None, everything,
                                       list(sold_out) if choice.in_stock else None, scope) \
            if len(groups) <= 1 else None
        if counts is None:
            counts = manager.facet_counts(stages, fields, filters, scope)
    if choice.in_stock:
        in_stock = counts["total"]
    else:
        in_stock = manager.in_stock_count(stages, filters, counts["listed"])
    present = {value for value, _n in everything["values"].get("type", ())}
    groups = [{"code": f["code"], "label": f["label"],
               "values": _values(counts["values"].get(f["code"], []), choice.values.get(f["code"], ()))}
              for f in fields if present.intersection(f["types"])]
    bands = [{"value": key, "label": label, "count": counts["bands"].get(key, 0), "chosen": key in choice.bands}
             for key, label, _low, _high in PRICE_BANDS]
    params_chosen = tuple((code, v) for code, values in choice.values.items() for v in values) \
        + tuple(("price", key) for key in choice.bands) + ((("in_stock", "1"),) if choice.in_stock else ())
    panel = FacetPanel(
        groups=[g for g in groups if g["values"]], bands=bands,
        in_stock={"count": in_stock, "chosen": choice.in_stock}, chosen=bool(choice),
        hidden=[(name, params[name]) for name in keep if params.get(name)],
        params=params_chosen, key=(repr(stages), params_chosen, in_stock), scope=tuple(scope),
        variant_options={f["code"]: choice.values[f["code"]] for f in fields
                         if f["code"] in choice.values and f["field"].startswith("variants.")},
    )
    return panel, Refined(refine(stages, filters, fields), counts["total"], stages, list(filters.values()))
