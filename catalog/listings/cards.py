"""``CardList``: a listing page's cards, kept as documents until a template reads them.

A listing's page comes from the catalog cache as product documents given
their live stock. Turning 24 documents into ``Product`` instances (each with
its embedded pricing and details) cost about a third of a warm category
page, and the card grid's HTML is itself cached (``{% catalog_fragment %}``,
keyed by ``signature()``), so on a warm page nothing reads the instances.
``CardList`` converts them on first read, all at once.
"""

import hashlib
from collections.abc import Sequence

from catalog.listings.ranking import what_matched


class CardList(Sequence):
    """The cards of ``documents`` (product documents with ``available`` set), each made by
    ``convert(document)`` the first time the list is iterated or indexed. Slicing gives a
    ``CardList`` of the slice."""

    def __init__(self, documents, convert):
        self.documents = list(documents)
        self._convert = convert
        self._cards = None

    def _all(self):
        if self._cards is None:
            self._cards = [self._convert(d) for d in self.documents]
        return self._cards

    def __len__(self):
        return len(self.documents)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return CardList(self.documents[index], self._convert)
        return self._all()[index]

    def __iter__(self):
        return iter(self._all())

    def shown(self):
        """A digest (str) per document of what its card shows of the catalog: the document as
        read, without its stock (``available``, which ``signature`` gives)."""
        return tuple(hashlib.sha1(repr(_without_stock(d)).encode(), usedforsecurity=False).hexdigest()
                     for d in self.documents)

    def signature(self):
        """What the cards show besides catalog data, read from the documents without
        converting them: ``((sku, units available or None, what a search matched), ...)``."""
        return tuple((d.get("sku"), d.get("available"), what_matched(d)) for d in self.documents)


def _without_stock(document):
    """``document`` without ``available``, its variants' included (a new dict)."""
    found = {k: v for k, v in document.items() if k != "available"}
    if found.get("variants"):
        found["variants"] = [{k: v for k, v in variant.items() if k != "available"} for variant in found["variants"]]
    return found
