"""A category's facet counts kept in parts, by its products' issue decade, so that an edit
recounts the products of one decade rather than the category's.

On the local server a count of a top category's facets decodes every
product it lists (about 1.7 s for 10,000 of 100,000). The counts of a
category page without a choice are the sums of those of its products'
issue decades (``issue_part``: each decade from ``FIRST_YEAR`` to
``LAST_YEAR``, the years before and after, and no date: a dozen parts,
each one cache entry): each part is cached under
``faceted:<category id>:<part>``, which a write bumps when a product listed
in the category changes what its facets count, or its issue date, in that
part (``catalog/store/writes.py``). So after a price edit that moves a
product into another price band, the next request counts one decade of the
category and sums the parts.

Below the cache, each part is kept in the database (``FacetCount.objects``,
``catalog/listings/facet_count_manager.py``) stamped with the versions it was
counted at, ``faceted:<id>:<part>`` and ``relisted:<id>`` (not the category's
own version nor the epoch: a rename or a cold cache leaves them). A part
missing from the cache is read from there (one read for all of them) when
its stamp is current; the others are counted and kept (one write). So a
cold cache (a restarted worker, an epoch bump) reads a dozen small
documents, and only a category never counted, or after a product type
changed, counts its products.

Parts counted together are counted in one read: a few by their issue
dates' range (on the ``listed_in_issue_date`` index), many (a category
never counted) by reading the whole category's products.
"""

import copy
import datetime
import hashlib

from catalog.store.cache import UNSET, cached_many, faceted_part_scope, relisted_scope, versions
from catalog.listings.facets import PRICE_BANDS, band_of
from catalog.store.siblings import catalog_model

#: The first and last issue years in a decade's part (a part is named by its decade's first year).
FIRST_YEAR, LAST_YEAR = 1950, 2039
BEFORE, AFTER, UNDATED = "before", "after", "undated"
#: Every part, in order.
PARTS = (BEFORE, *range(FIRST_YEAR, LAST_YEAR + 1, 10), AFTER, UNDATED)
_MILLISECOND = datetime.timedelta(milliseconds=1)
#: More parts missing than this are counted by one aggregation over the whole category.
MOST_PARTS_BY_RANGE = 4
#: A facet of at most this many values in a part has its counts given each value kept too
#: (``_conditioned``): the counts of a page with one of them chosen, summed from the parts.
MOST_VALUES_CONDITIONED = 60
#: The price bands' name among the conditioned counts (the parameter's and the filter's).
PRICE = "price"
#: What the kept counts' stamp names besides the facet fields: their form (2: with the
#: counts given each value), so that parts kept before are counted again.
KEPT_FORM = 2


def issue_part(moment):
    """The part of a product issued at ``moment`` (a datetime, or anything else: undated)."""
    if not isinstance(moment, datetime.datetime):
        return UNDATED
    if moment.year < FIRST_YEAR:
        return BEFORE
    return AFTER if moment.year > LAST_YEAR else moment.year - (moment.year - FIRST_YEAR) % 10


def part_range(part):
    """The issue dates of ``part`` (a decade's first year, BEFORE or AFTER) as a ``$match``
    condition."""
    low = None if part == BEFORE else datetime.datetime(LAST_YEAR + 1 if part == AFTER else part, 1, 1)
    high = None if part == AFTER else datetime.datetime(FIRST_YEAR if part == BEFORE else part + 10, 1, 1)
    # "After the millisecond before" rather than ``$gte``: the same dates on MongoDB (BSON
    # dates are milliseconds), but SecantusDB 0.7.0b3 leaves out the products issued at
    # (docs/local-server-differences.md: local-server difference 7)
    # exactly the lower bound when it reads the range from the ``listed_in_issue_date``
    # index (whose date is descending).
    return {**({"$gt": low - _MILLISECOND} if low else {}), **({"$lt": high} if high else {})}


def _empty(fields):
    return {"total": 0, "values": {f["code"]: {} for f in fields}, "bands": {}}


def _add(counts, fields, document):
    """Count ``document`` (a product with its facet fields) into ``counts``."""
    _add_held(counts, *_held(fields, document))


def _held(fields, document):
    """``(values, band, bands)`` of ``document``: ``{code: set of str}`` of each facet of
    ``fields``, the band its price is counted in (``band_of``) and the set of the bands whose
    filter (``facets.band_filter``) it matches (none without a number)."""
    values = {f["code"]: {v for v in _values_at(document, f["field"].split(".")) if isinstance(v, str)}
              for f in fields}
    retail = (document.get("pricing") or {}).get("retail")
    return values, band_of(retail), set(bands_matched(retail))


def bands_matched(cents):
    """The keys of the price bands whose filter (``facets.band_filter``: ``$gte`` its lowest,
    ``$lt`` its highest) ``cents`` matches: one for a number, none for anything else."""
    if not isinstance(cents, (int, float)) or isinstance(cents, bool):
        return []
    return [key for key, _label, low, high in PRICE_BANDS if cents >= low and (high is None or cents < high)]


def _add_held(counts, values, band, _bands=None, leave_out=None):
    """Count a product held as ``_held`` gives it into ``counts``, but not its values of the
    facet ``leave_out`` (a code; ``"price"``: not its band)."""
    counts["total"] += 1
    if leave_out != PRICE:
        counts["bands"][band] = counts["bands"].get(band, 0) + 1
    for code, held in values.items():
        if code == leave_out:
            continue
        slot = counts["values"].setdefault(code, {})
        for value in held:
            slot[value] = slot.get(value, 0) + 1


def _conditioned(fields, held):
    """The counts of a part's products given one value of a facet: ``{code: {"multi": bool,
    "values": {value: counts}}}`` for the price bands (``"price"``, by the bands' filters)
    and each facet of at most ``MOST_VALUES_CONDITIONED`` values in the part; ``counts`` as
    ``_empty``'s, of the products holding that value, without their own facet's counts;
    ``multi``: some product holds several of the facet's values (so that the counts of two
    chosen values do not add)."""
    distinct = {f["code"]: set() for f in fields}
    for values, _band, _bands in held:
        for code, found in values.items():
            distinct[code] |= found
    codes = [PRICE] + [f["code"] for f in fields if len(distinct[f["code"]]) <= MOST_VALUES_CONDITIONED]
    by = {}
    for code in codes:
        table, multi = {}, False
        for values, band, bands in held:
            keys = bands if code == PRICE else values[code]
            multi = multi or len(keys) > 1
            for key in keys:
                slot = table.setdefault(key, {"total": 0, "values": {}, "bands": {}})
                _add_held(slot, values, band, leave_out=code)
        by[code] = {"multi": multi, "values": table}
    return by


def _values_at(document, path):
    """The values at ``path`` (a list of keys) in ``document``, through lists, as MongoDB's
    dotted paths reach them (flattened)."""
    found = [document]
    for key in path:
        nxt = []
        for item in found:
            if isinstance(item, dict) and key in item:
                value = item[key]
                nxt.extend(value if isinstance(value, list) else [value])
            elif isinstance(item, list):
                nxt.extend(v[key] for v in item if isinstance(v, dict) and key in v)
        found = nxt
    flat = []
    for value in found:
        flat.extend(value if isinstance(value, list) else [value])
    return flat


def part_scope(category_id, part):
    """The versions ``part`` of ``category_id``'s facet counts is kept under: its decade's
    and the category's relisting's (``catalog/store/cache.py``)."""
    return (*faceted_part_scope([category_id], [part]), *relisted_scope([category_id]))


def _tokens(names):
    """``{name: token}`` of the scope ``names``: the request's (read once per request), or
    outside a request read now (one read)."""
    found = versions(names)
    if found is not None:
        return dict(zip(names, found))
    read = catalog_model("CatalogVersion").objects.tokens(names)
    return {name: read.get(name, UNSET) for name in names}


def _fields_key(fields):
    """What names the kept counts besides their versions: the facet fields and ``KEPT_FORM``."""
    return repr(([f["field"] for f in fields], KEPT_FORM))


def _stamp(key, tokens):
    return hashlib.sha1(repr((key, tokens)).encode(), usedforsecurity=False).hexdigest()


def _sum_into(total, counts):
    """Add ``counts`` (``_empty``'s form, or None: nothing) to ``total``."""
    if not counts:
        return
    total["total"] += counts["total"]
    for band, n in counts["bands"].items():
        total["bands"][band] = total["bands"].get(band, 0) + n
    for code, values in counts["values"].items():
        slot = total["values"].setdefault(code, {})
        for value, n in values.items():
            slot[value] = slot.get(value, 0) + n


class FacetPartsMixin:
    """A category's facet counts kept per issue decade, part of ``FacetManager``
    (``Product.facets``; needs ``read_collection``)."""

    def category_facet_counts(self, category_id, fields):
        """The facet counts of the products listed in ``category_id`` without a choice, summed
        from its issue-decade parts (see the module docstring): ``{"total", "values": {code:
        {value: products}}, "bands": {band key: products}}``. Warm: the cache; cold: one
        read of the kept parts, and for those not current one read of products and one
        write."""
        total = _empty(fields)
        for counts in self._parts(category_id, fields).values():
            _sum_into(total, counts)
        return total

    def _parts(self, category_id, fields):
        """``{(key, part): counts}`` of every part of ``category_id``'s facet counts (cached;
        cold: ``kept_facet_parts``)."""
        key = _fields_key(fields)

        def count(missing):
            parts = [part for _key, part in missing]
            return {(key, part): counts for part, counts in self.kept_facet_parts(category_id, fields, parts).items()}

        return cached_many("facet-part", [(key, part) for part in PARTS],
                           lambda k: part_scope(category_id, k[1]), count, remember=False)

    def category_choice_counts(self, category_id, fields, code, chosen):
        """The facet counts of the products listed in ``category_id`` that hold any of
        ``chosen`` (values of the facet ``code``, or price band keys for ``"price"``), summed
        from the parts' conditioned counts (``_conditioned``): ``{"total", "values": {code:
        {value: products}}, "bands"}`` without the facet ``code``'s own counts (nor the bands'
        for ``"price"``). None when a part has no such counts (a facet of too many values
        there) or when several values are chosen of a facet some product holds several of (their
        counts would not add). Warm: the cache; cold: as ``category_facet_counts``."""
        found = self._parts(category_id, fields)
        total = _empty(fields)
        for counts in found.values():
            by = (counts.get("by") or {}).get(code)
            if by is None or (by["multi"] and len(chosen) > 1):
                return None
            for value in chosen:
                _sum_into(total, by["values"].get(value))
        for slot in (code,):
            total["values"].pop(slot, None)
        return total

    def kept_facet_parts(self, category_id, fields, parts):
        """``{part: counts}`` of ``parts`` of ``category_id``'s facet counts: those kept at
        their current stamp (``FacetCount.objects``: one read), the others counted
        (``_count_parts``: one read of products) and kept (one read of their versions again,
        one write) when their versions did not change meanwhile."""
        key = _fields_key(fields)
        scopes = {part: part_scope(category_id, part) for part in parts}
        tokens = _tokens(sorted({name for names in scopes.values() for name in names}))
        stamps = {part: _stamp(key, tuple(tokens[n] for n in scopes[part])) for part in parts}
        kept = catalog_model("FacetCount").objects
        found = kept.kept(category_id, stamps)
        missing = [part for part in parts if part not in found]
        if missing:
            counted = self._count_parts(category_id, fields, missing)
            # Kept only at versions that did not change while it counted (one more read): a
            # save racing the count may move the parts kept at the versions before it
            # (``PartsShift``), which must not hold its change already.
            now = catalog_model("CatalogVersion").objects.tokens(sorted(tokens))
            unchanged = [part for part in missing
                         if all(now.get(n, UNSET) == tokens[n] for n in scopes[part])]
            kept.keep(category_id, {part: (stamps[part], counted[part]) for part in unchanged})
            found.update(counted)
        return found

    def keep_facet_counts(self, category_ids, fields):
        """Count and keep the facet counts of ``category_ids`` not kept yet at their current
        versions (``kept_facet_parts`` of every part of each: per category one read of the
        kept parts, and when some are not current one read of its products and one write).
        For a bulk load's end (``populatedb``), so that no shopper's request counts them."""
        for category_id in category_ids:
            self.kept_facet_parts(category_id, fields, list(PARTS))

    def _count_parts(self, category_id, fields, parts):
        """``{part: counts}`` of ``parts`` of ``category_id``'s products: one read of their facet
        fields by issue-date range when few and dated, else of every product listed."""
        projection = {"pricing.retail": 1, "details.issue_date": 1, **{f["field"]: 1 for f in fields}}
        held = {part: [] for part in parts}
        if len(parts) <= MOST_PARTS_BY_RANGE and UNDATED not in parts:
            matches = [{"listed_in": category_id, "details.issue_date": part_range(part)} for part in parts]
        else:
            matches = [{"listed_in": category_id}]
        for match in matches:
            for document in self.read_collection.find(match, projection):
                part = issue_part((document.get("details") or {}).get("issue_date"))
                if part in held:
                    held[part].append(_held(fields, document))
        counts = {}
        for part, products in held.items():
            counts[part] = _empty(fields)
            for values, band, bands in products:
                _add_held(counts[part], values, band, bands)
            counts[part]["by"] = _conditioned(fields, products)
        return counts


def _take_held(counts, values, band, leave_out=None):
    """Take a product held as ``_held`` gives it out of ``counts`` (the inverse of
    ``_add_held``), dropping what falls to 0; False when something would fall below 0 (the
    counts did not hold it: not what was counted)."""
    counts["total"] -= 1
    if leave_out != PRICE:
        counts["bands"][band] = counts["bands"].get(band, 0) - 1
        if counts["bands"][band] == 0:
            del counts["bands"][band]
        elif counts["bands"][band] < 0:
            return False
    for code, held in values.items():
        if code == leave_out:
            continue
        slot = counts["values"].setdefault(code, {})
        for value in held:
            slot[value] = slot.get(value, 0) - 1
            if slot[value] == 0:
                del slot[value]
            elif slot[value] < 0:
                return False
    return counts["total"] >= 0


def shifted(counts, fields, removed=None, added=None):
    """The counts of a part (``_count_parts``' form, with ``by``) after a product held as
    ``removed`` left it and one held as ``added`` joined it (each a ``_held`` tuple, or None):
    what counting the part again would give, without reading its products. None when that is
    not sure (the caller then leaves the part to be counted again): no ``by`` kept, a facet
    whose values cross ``MOST_VALUES_CONDITIONED``, a product leaving that held several values
    of a conditioned facet (its ``multi`` might fall), or a count that would fall below 0."""
    if counts.get("by") is None:
        return None
    new = copy.deepcopy(counts)
    if removed is not None and not _take_held(new, removed[0], removed[1]):
        return None
    if added is not None:
        _add_held(new, added[0], added[1])
    codes = {PRICE} | {f["code"] for f in fields if len(new["values"].get(f["code"], {})) <= MOST_VALUES_CONDITIONED}
    if codes != set(new["by"]):
        return None
    for code in codes:
        table = new["by"][code]
        if removed is not None:
            keys = removed[2] if code == PRICE else removed[0][code]
            if len(keys) > 1:
                return None
            for key in keys:
                slot = table["values"].get(key)
                if slot is None or not _take_held(slot, removed[0], removed[1], leave_out=code):
                    return None
                if slot["total"] == 0:
                    del table["values"][key]
        if added is not None:
            keys = added[2] if code == PRICE else added[0][code]
            table["multi"] = table["multi"] or len(keys) > 1
            for key in keys:
                slot = table["values"].setdefault(key, {"total": 0, "values": {}, "bands": {}})
                _add_held(slot, added[0], added[1], leave_out=code)
    return new


class ClaimedShift:
    """A save's move of kept counts under versions it claimed before its write: ``PartsShift``,
    and ``search_shift.WordsShift``. ``fields``: the facet fields; ``first``: ``{name: token}``
    as read before the claim; ``claimed``: ``{name: token}`` from ``CatalogVersion.objects.claim``.
    A subclass says how its kept counts move (``move``)."""

    def __init__(self, fields, first, claimed):
        self.fields, self.first, self.claimed = fields, first, claimed

    @property
    def names(self):
        """The version names it claimed (bumped by it, not by the save's plain bump)."""
        return set(self.claimed)

    def finish(self):
        """After the product's write: the claimed versions' final tokens (one write) and, when
        no other writer gave one of them tokens in between, the kept counts moved by the save
        (``move(final)``: one read, one write of those kept at the first tokens); else the
        versions bumped (one write), so what they key is counted again."""
        versions = catalog_model("CatalogVersion").objects
        final = versions.claim(self.claimed)
        if final is None:
            versions.bump(tuple(sorted(self.claimed)))
            return
        self.move(final)

    def move(self, final):
        """Move the kept counts stamped at the first tokens to ``final`` (``{name: token}``)."""
        raise NotImplementedError


class PartsShift(ClaimedShift):
    """A product's save that moves the kept facet counts of its categories' parts by what it
    changed (``shifted``) instead of leaving those parts to be counted again by the next
    reader (half of a faceted page's time right after an edit: a decade of the category
    read). Made by ``shift_parts`` before the product's write, ``finish``ed after it.

    Why it stays right with writers and readers racing: before the write, the parts'
    versions (``faceted:<id>:<part>``) are given new tokens only if they still have the ones
    read (``CatalogVersion.objects.claim``); after the write they are given their final tokens
    the same way, which fails if any other writer gave them tokens in between (a second save
    claims from the first's new tokens: it may move only parts kept at those). Only when both
    held are the kept parts stamped at the tokens read first moved to the final ones
    (``FacetCount.objects.shift``: a compare-and-set on the stamp): no other write of these
    parts came in between, and a part counted by a reader while the write ran is never kept
    at the first tokens (``kept_facet_parts`` keeps a count only if its versions did not
    change while it counted). Anything else is the usual bump: the part counted again."""

    def __init__(self, fields, moves, first, claimed):
        super().__init__(fields, first, claimed)
        self.moves = moves

    def move(self, final):
        """The kept counts of the parts (``faceted:<id>:<part>``) moved by the save."""
        key = _fields_key(self.fields)
        stamps = {}
        for (category_id, part) in self.moves:
            part_name, relisted = part_scope(category_id, part)
            stamps[(category_id, part)] = (
                _stamp(key, (self.first.get(part_name, UNSET), self.first.get(relisted, UNSET))),
                _stamp(key, (final[part_name], self.first.get(relisted, UNSET))))
        kept = catalog_model("FacetCount").objects
        found = kept.kept_parts({place: old for place, (old, _new) in stamps.items()})
        moved = {}
        for place, counts in found.items():
            removed, added = self.moves[place]
            counts = shifted(counts, self.fields, removed, added)
            if counts is not None:
                moved[place] = (stamps[place][0], stamps[place][1], counts)
        kept.shift(moved)


def shift_parts(before, after, fields):
    """A ``PartsShift`` for a save of a product from ``before`` to ``after`` (documents as
    stored: ``listed_in``, ``details``, ``pricing.retail``, the facet ``fields``), or None
    (a product added, removed or moved between categories: their parts are bumped and counted
    again, as are those of a claim that failed). One read of the parts' versions and one write
    (their claim)."""
    if before is None or after is None:
        return None
    listed = list(before.get("listed_in") or [])
    if not listed or set(listed) != set(after.get("listed_in") or []):
        return None
    sides = [(issue_part((side.get("details") or {}).get("issue_date")), _held(fields, side))
             for side in (before, after)]
    moves = {}
    for category_id in listed:
        for number, (part, held) in enumerate(sides):
            removed, added = moves.get((category_id, part), (None, None))
            moves[(category_id, part)] = (held, added) if number == 0 else (removed, held)
    names = sorted({name for place in moves for name in part_scope(*place)})
    first = catalog_model("CatalogVersion").objects.tokens(names)
    parts = sorted({part_scope(*place)[0] for place in moves})
    claimed = catalog_model("CatalogVersion").objects.claim({name: first.get(name) for name in parts})
    return None if claimed is None else PartsShift(fields, moves, first, claimed)
