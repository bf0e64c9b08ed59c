"""``SearchSummary.objects``: what a search by relevance shows, kept in the database per set of
words (``search_summaries``), so that a search's first visit in a process (a restarted worker,
a cold cache) reads one document rather than every product holding its words.

``{_id: the words sorted and joined by a space, words, stamp, total, parts: [[band, total,
bands, values, order, complete], ...], ids, counted_at}``: the matches split by the price band
whose filter they match (``facets.band_filter``; ``""`` for none: no price), each part with
its count, its facet counts (``bands``: ``[[band key, n]]`` as the facets' ``$bucket`` counts
them; ``values``: ``[[code, [[value, n], ...]], ...]``), its first ``PART_KEPT`` matches best
first (``order``: ``[[rank, title, _id, sku, matched_tracks, matched_people], ...]``,
``SEARCH_SORTS["relevance"]``) and whether that is all of them (``complete``). So a search
without a choice sums the parts and merges their orders; a search with price bands chosen
sums and merges the chosen bands' parts only (the bands' own counts stay the whole search's,
as a facet's counts leave out its own choice). A merged order holds the matches up to the
last of the first incomplete part (``merged_order``): past it, another part may hold better
ones, and the page is ranked by the aggregation as before (``search.RankedSearch``). A
summary of one word also keeps ``ids``, the ``_id`` of every product holding it (sorted): a
search of several words whose summaries are current reads only the products holding them all
(``matching``: their lists intersected, then one read by ``_id``) rather than every product
holding its rarest word.

``stamp`` names what the summary was counted at: the facet fields, ``SUMMARY_FORM`` and the
versions ``words:<word>`` of its words and ``search-kept`` (``catalog/store/cache.py``), read
*before* the products were counted. Every write that changes what a search shows of a
product (its searchable text, faceted values or SKU) bumps the words it holds before and
after, and a write naming too many versions (a catalog load, an import's batch) or a reset
of the catalog bumps ``search-kept`` (``catalog/store/writes.py``): a kept summary whose
stamp is not the current one is never shown; the reader counts it again and keeps it over.
A count that raced a write is stamped with the versions from before the write and is counted
again by the next reader: never wrong, at worst counted twice. A product type's change
changes the facet fields, so the stamp. The epoch is not in the stamp (an epoch bump cools
the cache, not these).

``populatedb`` keeps the summary of every word at least ``KEEP_FROM`` products hold
(``keep_words``: two passes over the products), so that no first search of a generated
catalog counts its matches; any other search keeps its own on its first visit.
"""

import hashlib
import re
from itertools import combinations

import bson

from django.db import models
from pymongo import ReplaceOne

from core import clock
from core.mongo import keep_first_of_racing_upserts
from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import SEARCH_KEPT, UNSET, versions, words_scope
from catalog.store.siblings import catalog_model
from catalog.listings.facet_parts import _held
from catalog.listings.facets import BAND_KEYS, band_filter
from catalog.listings.ranking import RANK_SOURCE_FIELDS, rank_document, rank_order_key, ranked, word_pattern

#: Matches kept per part, best first (a search by relevance keeps ``search.RANKED_KEPT`` of
#: them merged; 4 parts of 120 give at least 120 exactly, usually all 240).
PART_KEPT = 120
#: ``keep_words`` keeps the words held by at least this many products (fewer cost little).
KEEP_FROM = 100
#: What the stamp names besides the versions: the form of the kept document.
SUMMARY_FORM = 1
#: Summaries written per ``bulk_write`` by ``keep_words``.
_WRITE_BATCH = 50
#: The part of the matches whose price matches no band's filter (no price).
NO_BAND = ""
#: A word held by more products than this keeps no ``ids`` (a search with it is counted from
#: its rarest word's matches); a summary larger than ``MOST_BYTES_KEPT`` is not kept at all
#: (a document holds at most 16 MB on any server).
MOST_IDS_KEPT, MOST_BYTES_KEPT = 200_000, 8_000_000


def summary_id(words):
    """The ``_id`` of the summary of ``words`` (a search's words: letters and digits): the
    distinct words sorted, joined by a space (a search's results do not depend on their
    order)."""
    return " ".join(sorted(set(words)))


def summary_scope(words):
    """The versions a summary of ``words`` is stamped with: ``words:<word>`` of each and
    ``search-kept``."""
    return (*words_scope(words), SEARCH_KEPT)


def _stamp(fields, tokens):
    key = repr(([f["field"] for f in fields], SUMMARY_FORM, tokens))
    return hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()


def _tokens(names):
    """The tokens of ``names`` (a tuple): the request's (read once per request) or, outside
    a request, read now (one read)."""
    found = versions(names)
    if found is not None:
        return tuple(found)
    read = catalog_model("CatalogVersion").objects.tokens(list(names))
    return tuple(read.get(name, UNSET) for name in names)


def source_projection(fields):
    """What a summary reads of a product: what ranks it (``ranking.RANK_SOURCE_FIELDS``), its
    retail price and its facet fields (``fields``: ``facets.facet_fields()``)."""
    return {**RANK_SOURCE_FIELDS, "pricing.retail": 1, **{f["field"]: 1 for f in fields}}


class Summarizer:
    """Counts and ranks the matches of one search as they are read (``add``), then gives its
    summary (``summary``): parts by price band, each with its counts and its best
    ``PART_KEPT`` matches."""

    def __init__(self, words, fields, search=None):
        self.words, self.fields, self.search = list(words), fields, search
        self.parts, self.ids = {}, []

    def add(self, document, held=None, ranked=None):
        """Count and rank ``document`` (a product with ``source_projection(fields)``);
        ``held``: its ``facet_parts._held`` when known; ``ranked``: its ``rank_document`` for
        this search's words when known (``word_ranks``)."""
        values, band, bands = held if held is not None else _held(self.fields, document)
        name = next(iter(bands), NO_BAND)  # a number matches one band's filter, anything else none
        part = self.parts.get(name)
        if part is None:
            part = self.parts[name] = {"total": 0, "bands": {}, "values": {f["code"]: {} for f in self.fields},
                                       "order": [], "complete": True, "bound": None}
        self.ids.append(document["_id"])
        part["total"] += 1
        part["bands"][band] = part["bands"].get(band, 0) + 1
        for code, found in values.items():
            slot = part["values"][code] if code in part["values"] else part["values"].setdefault(code, {})
            for value in found:
                slot[value] = slot.get(value, 0) + 1
        if ranked is None:
            ranked = rank_document(document, self.words, self.search)
        title = document.get("title")
        key = (ranked["rank"], 0 if title is None else 1, title if isinstance(title, str) else "", document["_id"])
        if part["bound"] is not None and key > part["bound"]:  # past the part's best kept: never shown
            part["complete"] = False
            return
        part["order"].append((key, [ranked["rank"], title, document["_id"], document.get("sku"),
                                    ranked["matched_tracks"], ranked["matched_people"]]))
        if len(part["order"]) >= 4 * PART_KEPT:
            self._trim(part)

    @staticmethod
    def _trim(part):
        part["order"].sort(key=lambda item: item[0])
        if len(part["order"]) > PART_KEPT:
            del part["order"][PART_KEPT:]
            part["complete"] = False
            part["bound"] = part["order"][-1][0]

    def summary(self):
        """``{"total", "parts": {band: {"total", "bands", "values", "order", "complete"}}}``,
        ``order`` the part's best ``PART_KEPT`` as stored rows (see the module docstring)."""
        parts = {}
        for name, part in self.parts.items():
            self._trim(part)
            parts[name] = {**{k: v for k, v in part.items() if k != "bound"},
                           "order": [row for _key, row in part["order"]]}
        return {"total": sum(p["total"] for p in parts.values()), "parts": parts, "ids": sorted(self.ids)}


def _stored_parts(parts):
    """``parts`` (``Summarizer.summary``'s) as a summary document stores them."""
    return [[name, p["total"], sorted(p["bands"].items()),
             [[code, sorted(values.items())] for code, values in p["values"].items()],
             p["order"], p["complete"]] for name, p in sorted(parts.items())]


def _stored(words, stamp, summary, moment):
    return {"_id": summary_id(words), "words": sorted(set(words)), "stamp": stamp, "total": summary["total"],
            "parts": _stored_parts(summary["parts"]),
            **({"ids": summary["ids"]} if len(set(words)) == 1 and len(summary["ids"]) <= MOST_IDS_KEPT else {}),
            "counted_at": moment}


def _summary(document):
    return {"total": document["total"],
            "parts": {name: {"total": total, "bands": dict(map(tuple, bands)),
                             "values": {code: dict(map(tuple, found)) for code, found in values},
                             "order": order, "complete": complete}
                      for name, total, bands, values, order, complete in document["parts"]}}


def chosen_view(summary, fields, bands=None):
    """What a search shows from its ``summary`` (``Summarizer.summary``'s form), with the price
    ``bands`` chosen (band keys; None or empty: no choice): ``{"total", "order": its rows
    best first, as far as they are known (``merged_order``), "counts": {"total", "values":
    {code: {value: n}}, "bands": {band: n}}}``; ``counts["bands"]`` are the whole search's."""
    parts = summary["parts"]
    chosen = [name for name in parts if name != NO_BAND and name in bands] if bands else list(parts)
    counts = {"total": 0, "values": {f["code"]: {} for f in fields}, "bands": {}}
    for name, part in parts.items():
        for band, n in part["bands"].items():
            counts["bands"][band] = counts["bands"].get(band, 0) + n
    for name in chosen:
        part = parts[name]
        counts["total"] += part["total"]
        for code, values in part["values"].items():
            slot = counts["values"].setdefault(code, {})
            for value, n in values.items():
                slot[value] = slot.get(value, 0) + n
    return {"total": counts["total"], "order": merged_order([parts[name] for name in chosen]), "counts": counts}


def _row_key(row):
    return rank_order_key({"rank": row[0], "title": row[1], "_id": row[2]})


def merged_order(parts):
    """The rows of ``parts`` best first, up to the last row of the incomplete part whose last
    row comes first (past it that part may hold better ones than those merged): all of them
    when every part is complete."""
    rows = sorted((row for part in parts for row in part["order"]), key=_row_key)
    bounds = [_row_key(part["order"][-1]) for part in parts if not part["complete"] and part["order"]]
    if not bounds:
        return rows
    bound = min(bounds)
    return [row for row in rows if _row_key(row) <= bound]


class SearchSummaryManager(MongoCollectionMixin, models.Manager):
    """The kept summaries of searches (see the module docstring)."""

    def summary(self, words, fields, count):
        """The summary of the search for ``words`` (a list of search words) with the facets
        ``fields``: the kept one when its stamp is current (one read by ``_id``), else
        ``count(summarizer, ids, totals)`` (which adds every match to a ``Summarizer``; ``ids``
        and ``totals`` as ``matching`` gives them for several words, else None and ``{}``) and kept
        (one read of the versions again, then one write) only if its versions did not change
        while it counted: a save moves the kept summaries stamped at the versions from before
        it (``search_shift.WordsShift``), so a count holding that save must not be kept at
        them (it would be moved twice). ``Summarizer.summary``'s form."""
        tokens = _tokens(summary_scope(words))  # read before counting
        stamp = _stamp(fields, tokens)
        document = self.collection.find_one({"_id": summary_id(words)}, {"ids": 0})
        if document is not None and document.get("stamp") == stamp:
            return _summary(document)
        summarizer = Summarizer(words, fields)
        count(summarizer, *(self.matching(words, fields) if len(set(words)) > 1 else (None, {})))
        summary = summarizer.summary()
        names = summary_scope(words)
        read = catalog_model("CatalogVersion").objects.tokens(list(names))
        if tuple(read.get(name, UNSET) for name in names) == tokens:
            keep_first_of_racing_upserts(self.collection, _keepable([_stored(words, stamp, summary, clock.now())]))
        summary.pop("ids")  # kept for the searches of several words, not shown
        return summary

    def matching(self, words, fields):
        """``(ids, totals)``: ``ids`` the ``_id`` of the products holding every one of ``words``
        (several), a sorted list, from the kept summaries of each word (their ``ids``: one
        read) when every one is current, else None (the caller reads the matches from the
        rarest word's); ``totals`` ``{word: products holding it}`` as kept (possibly stale: a
        hint of which word is rarest, never a figure shown). So a search of several words kept
        one by one reads only the products holding them all."""
        words = sorted(set(words))
        tokens = dict(zip(summary_scope(words), _tokens(summary_scope(words))))
        stamps = {word: _stamp(fields, tuple(tokens[name] for name in summary_scope([word]))) for word in words}
        found = {d["_id"]: d for d in self.collection.find({"_id": {"$in": words}}, {"stamp": 1, "ids": 1, "total": 1})}
        totals = {word: d.get("total", 0) for word, d in found.items()}
        if any(word not in found or found[word].get("stamp") != stamps[word] or "ids" not in found[word]
               for word in words):
            return None, totals
        lists = sorted((found[word]["ids"] for word in words), key=len)
        common = set(lists[0])
        for ids in lists[1:]:
            common.intersection_update(ids)
        return sorted(common), totals

    def keep_words(self, fields, least=None):
        """Keep the summary of every word at least ``least`` (default ``KEEP_FROM``) products
        hold: one pass over the
        products' keywords to count them, one over what ranks and counts them (each product
        counted into the summary of each such word it holds), then one write per
        ``_WRITE_BATCH`` summaries. Stamped with the versions read before the passes. Returns
        how many summaries it kept. For ``populatedb`` (100,000 products: 2,000 words)."""
        least = KEEP_FROM if least is None else least
        products = catalog_model("Product").objects.collection
        frequency = {}
        for document in products.find({}, {"keywords": 1, "_id": 0}):
            for word in document.get("keywords") or ():
                frequency[word] = frequency.get(word, 0) + 1
        kept = sorted(word for word, n in frequency.items() if n >= least)
        if not kept:
            return 0
        names = [name for word in kept for name in summary_scope([word])]
        read = catalog_model("CatalogVersion").objects.tokens(sorted(set(names)))
        stamps = {word: _stamp(fields, tuple(read.get(name, UNSET) for name in summary_scope([word])))
                  for word in kept}
        summarizers = {word: Summarizer([word], fields, _word_search(word)) for word in kept}
        for document in products.find({}, {**source_projection(fields), "keywords": 1}):
            held = _held(fields, document)
            ranks = word_ranks(document)
            for word in document.get("keywords") or ():
                summarizer = summarizers.get(word)
                if summarizer is not None:
                    summarizer.add(document, held, ranks(word) if ranks is not None else None)
        moment = clock.now()
        writes = _keepable([_stored([word], stamps[word], summarizers[word].summary(), moment) for word in kept])
        for start in range(0, len(writes), _WRITE_BATCH):
            keep_first_of_racing_upserts(self.collection, writes[start:start + _WRITE_BATCH])
        return len(writes)

    def forget_all(self):
        """Forget every kept summary (every product deleted): the next search of each counts
        its matches again."""
        self.collection.delete_many({})


def _keepable(documents):
    """Upserts of the ``documents`` (summaries as stored) of at most ``MOST_BYTES_KEPT`` bytes."""
    return [ReplaceOne({"_id": d["_id"]}, d, upsert=True) for d in documents
            if len(bson.encode(d)) <= MOST_BYTES_KEPT]


_RUN = re.compile(r"\w+")


def _ascii_strings(values):
    return all(value.isascii() for value in values)


def word_ranks(document):
    """A function giving ``rank_document(document, [word])`` of each word ``document`` holds,
    from its words found once (a product ranked for each of its words: ``keep_words``), or
    None when its ranked text is not all ASCII (then ``rank_document`` ranks it). For ASCII
    text the two agree: the pattern ``\\b<word>\\b`` (``re.IGNORECASE``) matches exactly where
    a maximal run of letters, digits and ``_`` equals the word in lower case (a word of
    ``search_words`` is such a run, case-folded)."""
    details = document.get("details") if isinstance(document.get("details"), dict) else {}
    tracks = details.get("tracks") if isinstance(details.get("tracks"), list) else []
    track_titles = [t.get("title") for t in tracks if isinstance(t, dict)]
    track_titles = [t for t in track_titles if isinstance(t, str)]
    people = [p for key in ("actor", "director") if isinstance(details.get(key), list) for p in details[key]]
    people = [p for p in people if isinstance(p, str)]
    title, artist = document.get("title"), details.get("artist")
    title = title if isinstance(title, str) else ""
    artist = artist if isinstance(artist, str) else ""
    if not _ascii_strings([title, artist, *track_titles, *people]):
        return None

    def words(text):
        return {run.lower() for run in _RUN.findall(text)}

    def firsts(strings):
        first = {}
        for value in strings:
            for word in words(value):
                first.setdefault(word, value)
        return first

    in_title, in_artist = words(title), words(artist)
    first_track, first_person = firsts(track_titles), firsts(people)

    def ranks(word):
        track, person = first_track.get(word), first_person.get(word)
        return ranked(word in in_title, word in in_artist, [track] if track is not None else [],
                      [person] if person is not None else [])

    return ranks


def _word_search(word):
    """The compiled ranking pattern's ``search`` of one word (``ranking.word_pattern``), not
    through the ranking's small cache (``keep_words`` ranks thousands of words at once)."""
    return re.compile(word_pattern([word]), re.IGNORECASE).search


def chosen_bands(filters):
    """The price band keys whose ``facets.band_filter`` is the one filter of ``filters`` (the
    chosen facets' filters, a list), as a sorted tuple; None when ``filters`` is anything
    else (another facet chosen, "in stock", or nothing)."""
    if len(filters) != 1:
        return None
    for size in range(1, len(BAND_KEYS) + 1):
        for bands in combinations(BAND_KEYS, size):
            if band_filter(bands) == filters[0]:
                return tuple(sorted(bands))
    return None
