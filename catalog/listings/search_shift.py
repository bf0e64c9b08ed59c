"""A product's save that moves the kept summaries of its words' searches by what it changed,
instead of leaving each to be counted again by its next reader.

Counting a search again reads every product holding its word (1,172 at 100,000 products: about
250 ms of a search's first request after an edit, the server's time for those reads); moving
the kept summary by one product reads and writes the summaries alone. Only the summaries of one
word are moved (``SearchSummary.objects`` keeps those by ``populatedb`` and on a search's
first visit); a search of several words is counted again from its words' kept ``ids``, as
before.

Why it stays right with writers and readers racing, as ``facet_parts.PartsShift`` does for the
facet counts: before the write, the words' versions (``words:<word>``) are given new tokens
only if they still have the ones read (``CatalogVersion.objects.claim``); after the write they
are given their final tokens the same way, which fails if any other writer gave them tokens in
between. Only when both held are the summaries stamped at the tokens read first moved to the
final ones (a compare-and-set on the stamp): no other write of these words came in between,
and a summary counted by a reader while the write ran is never kept at the first tokens
(``SearchSummary.objects.summary`` keeps a count only if its versions did not change while it
counted). Anything else is the usual bump: the summary counted again.
"""

from pymongo import UpdateOne

from catalog.listings.facet_parts import ClaimedShift, _held
from catalog.listings.ranking import rank_document
from catalog.listings import search_summary
from catalog.listings.search_summary import NO_BAND, _row_key, _stamp, _stored_parts, _summary, summary_scope
from catalog.store.cache import SEARCH_KEPT, UNSET, words_scope
from catalog.store.siblings import catalog_model


def _moved(counts, key, sign):
    """Move ``counts[key]`` (``{key: n}``) by ``sign`` (1 or -1), dropping a count that falls
    to 0; False when it would fall below 0 (the summary did not hold what it should)."""
    n = counts.get(key, 0) + sign
    if n < 0:
        return False
    if n:
        counts[key] = n
    else:
        counts.pop(key, None)
    return True


def shifted(summary, fields, word, before, after):
    """The summary (``Summarizer.summary``'s form, without ``ids``) of the search for ``word``
    moved from ``before`` to ``after`` (one product's documents as stored, with its
    ``keywords``, ``_id`` and what ``search_summary.source_projection`` reads; None for a side
    that does not exist), or None when it cannot be moved exactly (a count that would fall
    below 0, or an incomplete part left with no row to bound it): the summary is then counted
    again. The counts as ``Summarizer.add`` counts; the product's row leaves its part's order
    and its new row joins its new part's when that part holds every match (``complete``) or
    the row ranks before the part's last kept row; a part past ``search_summary.PART_KEPT`` rows drops its
    last (the rows kept stay the part's best, in order)."""
    parts = {name: {**part, "bands": dict(part["bands"]), "order": list(part["order"]),
                    "values": {code: dict(values) for code, values in part["values"].items()}}
             for name, part in summary["parts"].items()}
    for document, sign in ((before, -1), (after, 1)):
        if document is None or word not in (document.get("keywords") or ()):
            continue
        values, band, bands = _held(fields, document)
        name = next(iter(bands), NO_BAND)
        if name not in parts:
            if sign < 0:
                return None
            parts[name] = {"total": 0, "bands": {}, "values": {f["code"]: {} for f in fields},
                           "order": [], "complete": True}
        part = parts[name]
        part["total"] += sign
        if part["total"] < 0 or not _moved(part["bands"], band, sign):
            return None
        for code, found in values.items():
            slot = part["values"].setdefault(code, {})
            if not all(_moved(slot, value, sign) for value in found):
                return None
        if sign < 0:
            part["order"] = [row for row in part["order"] if row[2] != document["_id"]]
        else:
            ranked = rank_document(document, [word])
            row = [ranked["rank"], document.get("title"), document["_id"], document.get("sku"),
                   ranked["matched_tracks"], ranked["matched_people"]]
            if part["complete"] or (part["order"] and _row_key(row) < _row_key(part["order"][-1])):
                part["order"] = sorted([*part["order"], row], key=_row_key)
                if len(part["order"]) > search_summary.PART_KEPT:
                    del part["order"][search_summary.PART_KEPT:]
                    part["complete"] = False
        if not part["complete"] and not part["order"]:
            return None
    parts = {name: part for name, part in parts.items() if part["total"] > 0}
    return {"total": sum(part["total"] for part in parts.values()), "parts": parts}


class WordsShift(ClaimedShift):
    """A product's save that moves the kept summaries of its words (see the module docstring;
    ``names``: ``words:<word>`` of each). Made by ``shift_words`` before the product's write,
    ``finish``ed after it."""

    def __init__(self, fields, before, after, first, claimed):
        super().__init__(fields, first, claimed)
        self.before, self.after = before, after

    def move(self, final):
        """The kept summaries of the words (``words:<word>``) moved by the save."""
        stamps = {}
        for word in self.words:
            (name,) = words_scope([word])
            stamps[word] = (_stamp(self.fields, (self.first.get(name, UNSET), self.first.get(SEARCH_KEPT, UNSET))),
                            _stamp(self.fields, (final[name], self.first.get(SEARCH_KEPT, UNSET))))
        collection = catalog_model("SearchSummary").objects.collection
        found = collection.find({"_id": {"$in": sorted(stamps)}}, {"ids": 0})
        writes = []
        for document in found:
            word = document["_id"]
            if document.get("stamp") != stamps[word][0]:
                continue
            moved = shifted(_summary(document), self.fields, word, self.before, self.after)
            if moved is None:
                continue
            update = {"$set": {"stamp": stamps[word][1], "total": moved["total"],
                               "parts": _stored_parts(moved["parts"])}}
            held = [word in (side.get("keywords") or ()) for side in (self.before, self.after)]
            if held == [True, True]:
                writes.append(UpdateOne({"_id": word, "stamp": stamps[word][0]}, update))
                continue
            # It gains or loses the word: its _id joins or leaves the kept ids (when kept).
            ids = {"$addToSet" if held[1] else "$pull": {"ids": self.after["_id"] if held[1] else self.before["_id"]}}
            writes.append(UpdateOne({"_id": word, "stamp": stamps[word][0], "ids": {"$exists": True}},
                                    {**update, **ids}))
            writes.append(UpdateOne({"_id": word, "stamp": stamps[word][0], "ids": {"$exists": False}}, update))
        if writes:
            collection.bulk_write(writes, ordered=True)

    @property
    def words(self):
        return sorted(name.split(":", 1)[1] for name in self.claimed)


def shift_words(before, after, fields):
    """A ``WordsShift`` for a save of a product from ``before`` to ``after`` (documents as
    stored, both with ``_id``, ``keywords`` and what ``search_summary.source_projection``
    reads), or None (a product added or removed, none of its words' searches kept at their
    current versions, or a claim that failed: the summaries are counted again). One read of
    the words' versions, one of their kept summaries' stamps and, when some are current, one
    write (their claim)."""
    if before is None or after is None:
        return None
    words = sorted(set(before.get("keywords") or ()) | set(after.get("keywords") or ()))
    if not words:
        return None
    names = sorted(set(summary_scope(words)))
    first = catalog_model("CatalogVersion").objects.tokens(names)
    current = {word: _stamp(fields, (first.get(words_scope([word])[0], UNSET), first.get(SEARCH_KEPT, UNSET)))
               for word in words}
    kept = [d["_id"] for d in catalog_model("SearchSummary").objects.collection.find({"_id": {"$in": words}}, {"stamp": 1})
            if d.get("stamp") == current.get(d["_id"])]
    if not kept:
        return None
    claimed = catalog_model("CatalogVersion").objects.claim(
        {name: first.get(name) for name in words_scope(kept)})
    return None if claimed is None else WordsShift(fields, before, after, first, claimed)
