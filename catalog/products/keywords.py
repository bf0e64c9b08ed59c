"""Search keywords: the words a product is found by, kept on the product.

The storefront search matches the words of a query against
``Product.keywords``, a sorted array of the product's distinct words
(case-folded runs of letters and digits) from ``KEYWORD_SOURCES``, served by
a multikey index (``keywords``). This is the classic pattern from before
MongoDB had ``$text``, and it runs the same on every server: the local
SecantusDB server has no text index, and a real MongoDB serves it from the
(docs/local-server-differences.md: local-server differences 1 and 12)
same index. ``save()``, ``ProductWriteManager.sync()`` and migration ``0004`` keep
the field in step with the product.
"""

import re

#: Where a product's words come from (its own fields and its details').
KEYWORD_SOURCES = ("title", "description", "details.artist", "details.tracks.title",
                   "details.actor", "details.director")
#: Longer words are cut: an index key stays small.
MAX_KEYWORD_LENGTH = 64
MAX_SEARCH_WORDS = 10

_WORD = re.compile(r"\w+")


def words_of(text):
    """The words of ``text`` in order, case-folded, without repeats: ``"Led LED zep"`` -> ``["led", "zep"]``."""
    words = []
    for word in _WORD.findall(str(text or "").casefold()):
        word = word[:MAX_KEYWORD_LENGTH]
        if word not in words:
            words.append(word)
    return words


def search_words(text):
    """The words of a shopper's query: at most ``MAX_SEARCH_WORDS``; punctuation and operators
    are never kept (``'$where (Led) .*'`` -> ``["where", "led"]``)."""
    return words_of(text)[:MAX_SEARCH_WORDS]


def prefix_range(prefix):
    """The strings that start with ``prefix`` (non-empty), as a range condition:
    ``"zep"`` -> ``{"$gte": "zep", "$lt": "zeq"}``.

    It means the same as the anchored pattern ``{"$regex": "^zep"}`` ("Product Catalog" use case
    "Regular Expression Pitfalls"), and MongoDB serves both from an index;
    SecantusDB 0.7.0b3 scans the collection for any ``$regex`` but serves a
    range from the index, so the shop writes prefixes as ranges. No character
    of ``prefix`` is ever read as a pattern or an operator.
    """
    last = ord(prefix[-1])
    if last >= 0x10FFFF:
        return {"$gte": prefix}
    return {"$gte": prefix, "$lt": prefix[:-1] + chr(last + 1)}


def _values(document, path):
    """Every value at a dotted ``path`` of a dict ``document``, through lists."""
    values = [document]
    for step in path.split("."):
        found = []
        for value in values:
            if isinstance(value, list):
                found.extend(v.get(step) for v in value if isinstance(v, dict))
            elif isinstance(value, dict):
                found.append(value.get(step))
        values = found
    flat = []
    for value in values:
        flat.extend(value if isinstance(value, list) else [value])
    return [v for v in flat if isinstance(v, str)]


def document_keywords(document):
    """The sorted distinct words of a product document (a dict as stored) from ``KEYWORD_SOURCES``."""
    words = set()
    for path in KEYWORD_SOURCES:
        for text in _values(document, path):
            words.update(words_of(text))
    return sorted(words)
