"""Search relevance from a product's own fields: no ``$text`` score needed.

``search_ranking`` adds aggregation stages after whatever ``$match`` selected
the results (the ``keywords`` index): where a word of the query first matched gives ``rank``, title before
artist before track before cast before anything else; ``what_matched``
words it for the result card. Used by ``search.search_listing`` (``SearchManager.search``).
"""

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
