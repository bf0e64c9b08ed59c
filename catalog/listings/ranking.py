"""Search relevance from a product's own fields: no ``$text`` score needed.

``search_ranking`` adds aggregation stages after whatever ``$match`` selected
the results (the ``keywords`` index): where a word of the query first matched gives ``rank``, title before
artist before track before cast before anything else; ``what_matched``
words it for the result card. Used by ``search.search_listing`` (``SearchManager.search``).
"""

import functools
import re

# What a search result's ``rank`` says matched (``search_ranking``).
RANK_TITLE, RANK_ARTIST, RANK_TRACK, RANK_PEOPLE, RANK_OTHER = range(5)


def word_pattern(words):
    """A case-insensitive pattern (str) matching one of ``words`` as a whole word, as the
    search matches them (``Product.keywords``); from ``search_words``: letters and digits
    only, escaped all the same."""
    return r"\b(?:" + "|".join(re.escape(word) for word in words) + r")\b"


# The fields search_ranking adds, for the projection of result cards.
RANK_FIELDS = {"rank": 1, "matched_tracks": 1, "matched_people": 1}


def search_ranking(words):
    """Aggregation stages giving each product matching ``words`` its ``rank`` (``RANK_TITLE``
    0 .. ``RANK_OTHER`` 4: where a word matched first, title before artist before track) and
    ``matched_tracks`` / ``matched_people``: the first track title / actor or director that
    matched (empty arrays when none).

    Computed from the product's own fields with ``$regexMatch`` (no ``$text``
    score, which SecantusDB lacks), over ``$map``/``$filter`` of the arrays
    (docs/local-server-differences.md: local-server differences 1 and 2)
    rather than ``"$details.tracks.title"`` paths (which SecantusDB evaluates
    to missing). Works with whatever ``$match`` selected the products.
    """
    pattern = word_pattern(words)

    def hit(expression):
        return {"$regexMatch": {"input": {"$ifNull": [expression, ""]}, "regex": pattern,
                                "options": "i"}}

    def first_hits(array, value):
        matching = {"$filter": {"input": {"$ifNull": [array, []]}, "cond": hit(value)}}
        return {"$slice": [{"$map": {"input": matching, "in": value}}, 1]}

    people = {"$concatArrays": [{"$ifNull": ["$details.actor", []]},
                                {"$ifNull": ["$details.director", []]}]}
    return [
        {"$addFields": {
            "matched_tracks": first_hits("$details.tracks", "$$this.title"),
            "matched_people": first_hits(people, "$$this"),
        }},
        {"$addFields": {"rank": {"$switch": {"branches": [
            {"case": hit("$title"), "then": RANK_TITLE},
            {"case": hit("$details.artist"), "then": RANK_ARTIST},
            {"case": {"$gt": [{"$size": "$matched_tracks"}, 0]}, "then": RANK_TRACK},
            {"case": {"$gt": [{"$size": "$matched_people"}, 0]}, "then": RANK_PEOPLE},
        ], "default": RANK_OTHER}}}},
    ]


#: What ``rank_document`` reads of a product (a ``$project`` of inclusions).
RANK_SOURCE_FIELDS = {"sku": 1, "title": 1, "details.artist": 1, "details.tracks.title": 1,
                      "details.actor": 1, "details.director": 1}


def rank_document(document, words, search=None):
    """``search_ranking``'s fields of ``document`` (a product with ``RANK_SOURCE_FIELDS``),
    computed in the process rather than by the server: ``{"rank", "matched_tracks",
    "matched_people"}``, the same values as the stages give on the local server (whose
    ``$regexMatch`` is Python's ``re`` with ``re.IGNORECASE``; on MongoDB its PCRE, the same
    for the words ``search_words`` keeps). A value that is not a string never matches (the
    server refuses it in a ``$regexMatch``; the shop stores none). ``search``: the compiled
    ``word_pattern(words)``'s ``search`` when the caller holds it (default: compiled here,
    through a small cache)."""
    search = search or _compiled(tuple(words)).search
    details = document.get("details") if isinstance(document.get("details"), dict) else {}
    tracks = details.get("tracks") if isinstance(details.get("tracks"), list) else []
    matched_tracks = _first_hit(search, [t.get("title") for t in tracks if isinstance(t, dict)])
    people = [p for key in ("actor", "director") if isinstance(details.get(key), list) for p in details[key]]
    matched_people = _first_hit(search, people)
    title, artist = document.get("title"), details.get("artist")
    return ranked(isinstance(title, str) and search(title) is not None,
                  isinstance(artist, str) and search(artist) is not None, matched_tracks, matched_people)


def ranked(in_title, in_artist, matched_tracks, matched_people):
    """``{rank, matched_tracks, matched_people}`` of a product whose title (``in_title``, bool)
    or artist (``in_artist``) holds a searched word, or whose tracks' and people's first hits
    are ``matched_tracks`` and ``matched_people`` (lists of at most one string): the first
    field that matches ranks it (title, artist, a track, a person, else another field). The one
    order of ``rank_document`` and of the searches' kept summaries (``search_summary``)."""
    if in_title:
        rank = RANK_TITLE
    elif in_artist:
        rank = RANK_ARTIST
    elif matched_tracks:
        rank = RANK_TRACK
    elif matched_people:
        rank = RANK_PEOPLE
    else:
        rank = RANK_OTHER
    return {"rank": rank, "matched_tracks": matched_tracks, "matched_people": matched_people}


def _first_hit(search, values):
    """``[the first string of values that search (a compiled ``word_pattern``'s) finds a word
    in]``, or ``[]``: one search over the strings joined by a newline (a word is letters and
    digits, so no match spans one, and a newline bounds a word as a string's end does)
    rather than one per value (most of the ranking's time)."""
    strings = [value for value in values if isinstance(value, str)]
    if not strings:
        return []
    found = search("\n".join(strings))
    if found is None:
        return []
    start, position = found.start(), 0
    for value in strings:
        position += len(value) + 1
        if start < position:
            return [value]
    return []  # not reached: the match starts within the joined strings


@functools.lru_cache(maxsize=64)
def _compiled(words):
    return re.compile(word_pattern(words), re.IGNORECASE)


def rank_order_key(document):
    """The sort key of a ranked ``document`` (``rank_document``'s ``rank``, its ``title`` and
    ``_id``) in the order of ``SEARCH_SORTS["relevance"]``, as MongoDB compares them (a
    missing or null title before any string; strings by code point, as BSON's UTF-8 bytes)."""
    title = document.get("title")
    return (document["rank"], 0 if title is None else 1, title if isinstance(title, str) else "", document["_id"])


def what_matched(document):
    """The words a search result shows for what matched (str), from ``search_ranking``'s fields:
    ``"title"``, ``"artist: AC/DC"``, ``"track: Inject The Venom"``, ``"cast: ..."``, or
    ``"description"``; None for a document read without them."""
    rank = document.get("rank")
    if rank is None:
        return None
    if rank == RANK_TITLE:
        return "title"
    if rank == RANK_ARTIST:
        return f"artist: {(document.get('details') or {}).get('artist', '')}"
    if rank == RANK_TRACK and document.get("matched_tracks"):
        return f"track: {document['matched_tracks'][0]}"
    if rank == RANK_PEOPLE and document.get("matched_people"):
        return f"cast: {document['matched_people'][0]}"
    return "description"
