"""``CardList``: a listing page's cards, kept as documents until a template reads them.

A listing's page comes from the catalog cache as product documents given
their live stock. Turning 24 documents into ``Product`` instances (each with
its embedded pricing and details) cost about a third of a warm category
page, and the card grid's HTML is itself cached (``{% catalog_fragment %}``,
keyed by ``signature()``), so on a warm page nothing reads the instances.
``CardList`` converts them on first read, all at once.

A listing narrowed by a variant attribute (the facet "Format: Vinyl": ``variant_options``)
shows on each card the variant it asked for (``matching_variant``): its price, was-price and
stock, and a link to the product page with it chosen. That variant is picked from the
documents already read (their variants and their stock), so it costs no read.
"""

import hashlib
from collections.abc import Sequence

from catalog.listings.ranking import what_matched
from catalog.products.variants import cheapest


def matching_variant(document, variant_options):
    """The variant (one of ``document["variants"]``, a dict) a card of ``document`` (a product
    document) shows in a listing narrowed by ``variant_options`` (``{variant attribute
    code: values chosen}``, ``catalog.listings.facets.FacetPanel.variant_options``): the
    cheapest by retail price (the first of equals) of its variants whose options hold one
    of the chosen values of every code. None without ``variant_options``, for a product
    without variants, or when no one variant matches every code (the listing's filter
    matches each code on any variant: the card then shows the product as unfiltered)."""
    if not variant_options:
        return None
    matching = [v for v in document.get("variants") or ()
                if all((v.get("options") or {}).get(code) in values for code, values in variant_options.items())]
    return cheapest(matching)


class CardList(Sequence):
    """The cards of ``documents`` (product documents with ``available`` set), each made by
    ``convert(document)`` (a ``Product``) the first time the list is iterated or indexed.
    ``variant_options`` (``{code: values}``, see ``matching_variant``): a card that shows one
    of its variants has it as ``shown_variant`` (a ``Variant`` with ``available``; a card of
    ``ListingManager.card_from_document`` has None otherwise).
    Slicing gives a ``CardList`` of the slice."""

    def __init__(self, documents, convert, variant_options=None):
        self.documents = list(documents)
        self._convert = convert
        self.variant_options = dict(variant_options or {})
        self._cards = None

    def _all(self):
        if self._cards is None:
            self._cards = [self._card(d) for d in self.documents]
        return self._cards

    def _card(self, document):
        card = self._convert(document)
        variant = matching_variant(document, self.variant_options)
        if variant is not None:
            card.shown_variant = card.variant(variant.get("sku"))
        return card

    def __len__(self):
        return len(self.documents)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return CardList(self.documents[index], self._convert, self.variant_options)
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
        converting them: ``((sku, units available or None, what a search matched, the SKU of
        the variant shown or None), ...)``; the units are the shown variant's when there is
        one (``matching_variant``), else the product's."""
        found = []
        for d in self.documents:
            variant = matching_variant(d, self.variant_options) or {}
            found.append((d.get("sku"), variant.get("available", d.get("available")), what_matched(d),
                          variant.get("sku")))
        return tuple(found)


def _without_stock(document):
    """``document`` without ``available``, its variants' included (a new dict)."""
    found = {k: v for k, v in document.items() if k != "available"}
    if found.get("variants"):
        found["variants"] = [{k: v for k, v in variant.items() if k != "available"} for variant in found["variants"]]
    return found
