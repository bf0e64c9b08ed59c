"""``Product.objects``: the "Product Catalog" use case's, read and written as raw pymongo.

A product by SKU, the products of a category and all its descendants
(sorted, paginated, with their stock joined in), the "Product Catalog" use case's queries served
by their indexes, search, and the catalog loader's sync. The listing and
search builders are in ``catalog/listings/query.py`` and ``catalog/listings/search.py``.
See ``docs/operations.md`` ("Product Catalog" use case).
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import models
from pymongo import InsertOne, ReplaceOne, UpdateMany

from core.mongo.collections import MongoCollectionMixin
from core.mongo.documents import model_to_document

from catalog.listings.query import CARD_FIELD_NAMES, CARD_FIELDS, SORTS, DealsListing, ProductQuery
from catalog.store.cache import PRODUCTS, cached, cached_many, product_scope, savings_part_scope, savings_scope, words_scope
from catalog.listings.cards import CardList
from catalog.listings.ranking import what_matched
from catalog.products.keywords import search_words
from catalog.listings.search import DEFAULT_SEARCH_SORT, search_listing, search_stages, suggest_query
from catalog.tree.nodes import listed_in
from catalog.products.variants import apply_to_document, keep_images, line_title, options_label, sellable_skus
from catalog.listings.facet_parts import MOST_PARTS_BY_RANGE, PARTS, UNDATED, issue_part, part_range
from catalog.listings.facet_manager import FacetsMixin
from catalog.listings.manager import ListingsMixin
from catalog.products.sku_writes import ProductImportsMixin
from catalog.store.subdocument_reads import SubdocumentMixin
from catalog.store.siblings import catalog_model
from catalog.store import writes
from inventory.models import Inventory


@dataclass(frozen=True)
class SkuFacts:
    """What checkout needs of one sold SKU (``ProductManager.checkout_facts``): ``price`` cents
    per unit (None: no retail price), ``weight`` grams per unit, the product's ``product_id``
    (ObjectId) and ``product_sku``, ``product_type`` (its type's name), ``listed_in`` (tuple of
    category ids: its categories and their ancestors) and ``tax_class`` ("" when unset)."""

    price: object
    weight: int
    product_id: object
    product_sku: str
    product_type: str
    listed_in: tuple
    tax_class: str


#: The largest ``pricing.pct_savings`` (whole percent).
MOST_PCT_SAVINGS = 100

class ProductManager(ListingsMixin, FacetsMixin, ProductImportsMixin, SubdocumentMixin, MongoCollectionMixin, models.Manager):
    """The "Product Catalog" use case's reads; the FoundationDB "Hierarchical Documents" recipe's reads by path."""

    def get_by_sku(self, sku):
        """The product of ``sku``: the product whose own SKU or one of whose variants' SKUs it is
        (one read, an equality on the ``skus`` index; ``catalog/products/variants.py``). Whether it sells
        that SKU: ``product.sellable_skus``. Raises ``Product.DoesNotExist``."""
        document = self.read_collection.find_one({"skus": str(sku)})
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.from_document(document)

    def read_by_path(self, sku, steps=()):
        """The product document with ``sku``, or its value at ``steps`` (FoundationDB "Hierarchical Documents" recipe): one read.

        ``sku`` may be a variant's: the document is then its product's. The document
        is served as stored, without ``title_lower`` (a search copy of the title) and
        ``skus`` (its SKU and its variants'), and with ``currency``: the currency of its
        prices, which are integer cents (``settings.SHOP_CURRENCY``). See
        ``SubdocumentMixin.read_path``. Raises ``Product.DoesNotExist``,
        ``MalformedPath``, ``PathNotFound``.
        """
        return self.read_path({"skus": str(sku)}, steps, hidden=("title_lower", "skus"),
                              added={"currency": settings.SHOP_CURRENCY})

    def get_with_availability(self, sku):
        """The product with ``sku`` and its ``available`` units (int, None without a stock
        record), for the product page.

        The product comes from the catalog cache (``catalog/store/cache.py``;
        one read when it is not there), its stock as pages show it (``with_availability``:
        no read while kept). Raises ``Product.DoesNotExist``.
        """
        sku = str(sku)
        document = cached("product", sku, lambda: self.read_collection.find_one(
            {"sku": sku}, {"keywords": 0, "title_lower": 0}), product_scope([sku]))
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.card_from_document(self.with_availability([document])[0], fields=None)

    def with_availability(self, documents):
        """``documents`` (product documents with ``sku``, and ``variants.sku`` for those that
        have variants), each given ``available``: the units of the SKUs it sells available now
        (int; a product with variants the sum over its variants, each of which gets its own
        ``available``), or None without a stock record. The stock as pages show it
        (``Inventory.objects.shown_many``: kept ``STOCK_SHOWN_SECONDS`` per SKU and forgotten
        by every stock write; one read of the SKUs not kept, none for no documents).
        Returns ``documents``."""
        if not documents:
            return documents
        stock = Inventory.objects.shown_many(
            [sku for d in documents for sku in sellable_skus(d["sku"], d.get("variants"))])
        for document in documents:
            variants = document.get("variants") or []
            for variant in variants:
                variant["available"] = stock.get(variant.get("sku"))
            if variants:
                known = [v["available"] for v in variants if v["available"] is not None]
                document["available"] = sum(known) if known else None
            else:
                document["available"] = stock.get(document["sku"])
        return documents

    def card_from_document(self, document, fields=CARD_FIELD_NAMES):
        """A Product from a document given its stock by ``with_availability``;
        ``product.available`` is the SKU's available units (int) or None when it has no
        stock record, and ``product.matched`` what a search matched
        (``ranking.what_matched``); ``product.shown_variant`` None (a listing narrowed by a
        variant attribute sets the variant its card shows: ``catalog.listings.cards.CardList``)."""
        product = self.from_document(document, fields)
        product.available = document.get("available")
        product.shown_variant = None
        if fields is None or "variants" in fields:
            for variant, stored in zip(product.variants or (), document.get("variants") or ()):
                variant.available = stored.get("available")
        product.matched = what_matched(document)
        return product

    def cards(self, pipeline, fields=CARD_FIELD_NAMES, scope=(PRODUCTS,), shown=None):
        """Run ``pipeline`` on the read preference (one aggregation, cached under ``scope``, the
        listing's: ``catalog/store/cache.py``), then read the stock of its products (one read).
        Returns its documents as cards (``card_from_document``). ``shown``: see ``cache.cached``."""
        documents = cached("cards", pipeline, lambda: list(self.read_collection.aggregate(pipeline)), scope,
                           shown)
        return CardList(self.with_availability(documents), lambda d: self.card_from_document(d, fields))

    def cards_by_sku(self, skus, scope):
        """The card documents (``CARD_FIELDS``, without stock) of the products whose own SKUs
        are ``skus`` (a list of str), in that order, those that exist: one read by the ``sku``
        index when cold, cached under ``scope`` (the caller's: ``product_scope(skus)`` for a
        hand-picked row). The caller reads the stock (``with_availability``)."""
        skus = [str(s) for s in skus]
        if not skus:
            return []

        def read():
            found = {d["sku"]: d for d in self.read_collection.find({"sku": {"$in": skus}}, CARD_FIELDS)}
            return [found[s] for s in skus if s in found]

        return cached("cards-by-sku", tuple(skus), read, tuple(scope))

    def counted_cards(self, pipeline, scope=(PRODUCTS,), shown=None, variant_options=None):
        """Run ``pipeline``, whose last stage is ``$facet {total: [$count n], items: [...]}``
        (one aggregation, cached under ``scope``, the listing's), then read the stock of the
        items (one read). Returns ``(total, cards)``; ``variant_options``: the variant
        attributes chosen (``{code: values}``), whose matching variant each card shows
        (``catalog.listings.cards.CardList``)."""
        def read():
            result = next(iter(self.read_collection.aggregate(pipeline)), {"total": [], "items": []})
            return (result["total"][0]["n"] if result["total"] else 0), result["items"]

        total, documents = cached("counted_cards", pipeline, read, scope,
                                  None if shown is None else lambda value: shown(value[1]))
        return total, CardList(self.with_availability(documents), self.card_from_document, variant_options)

    def count_matching(self, match, scope=(PRODUCTS,)):
        """How many products match the filter ``match`` (one ``count_documents``, cached under
        ``scope``, the listing's)."""
        return cached("count", match, lambda: self.read_collection.count_documents(match), scope)

    def explain_find(self, match, projection, sort=None):
        """The server's ``explain`` (a dict) of the find of the first product of ``match``."""
        cursor = self.read_collection.find(match, projection)
        return (cursor.sort(sort) if sort else cursor).limit(1).explain()

    def shipping_weights(self, skus):
        """``{sku: shipping weight in grams}`` of the SKUs among ``skus`` that a product sells
        (one read, ``prices_and_weights``; 0 if unset)."""
        return {sku: weight for sku, (_, weight) in self.prices_and_weights(skus).items()}

    def prices_and_weights(self, skus):
        """``{sku: (retail price in cents, shipping weight in grams)}`` of the SKUs among ``skus``
        that a product sells, as they are now (``checkout_facts``, one read)."""
        return {sku: (fact.price, fact.weight) for sku, fact in self.checkout_facts(skus).items()}

    def checkout_facts(self, skus):
        """``{sku: SkuFacts}`` of the SKUs among ``skus`` that a product sells, as they are now:
        what checkout prices a line with (``orders.pricing``): the retail price in cents (a
        variant's own; None for a product without one), the shipping weight in grams (its
        product's; 0 if unset), and what promotions and tax rules match on: the product's
        ``_id`` and SKU, its type's name, ``listed_in`` (its categories with their ancestors)
        and its ``tax_class`` ("" when unset).

        One read from the primary (a write depends on it): ``{skus: {$in: skus}}`` on the
        ``skus`` index, so it costs the same whatever the number of products in the shop. A
        SKU without a product, and the SKU of a product with variants (it names the page and
        sells nothing), are absent.
        """
        wanted = {str(s) for s in skus}
        cursor = self.collection.find({"skus": {"$in": sorted(wanted)}},
                                      {"sku": 1, "type": 1, "listed_in": 1, "tax_class": 1,
                                       "pricing.retail": 1, "shipping.weight": 1,
                                       "variants.sku": 1, "variants.pricing.retail": 1})
        facts = {}
        for d in cursor:
            weight = int((d.get("shipping") or {}).get("weight") or 0)
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    retail = (item.get("pricing") or {}).get("retail")
                    facts[item["sku"]] = SkuFacts(
                        price=None if retail is None else int(retail), weight=weight,
                        product_id=d["_id"], product_sku=d.get("sku", ""), product_type=d.get("type", ""),
                        listed_in=tuple(d.get("listed_in") or ()), tax_class=d.get("tax_class") or "")
        return facts

    def sku_owners(self, skus):
        """``{sku: (product _id, product SKU)}`` for the SKUs among ``skus`` that a product or a
        variant already uses (one read from the primary, on the ``skus`` index): the product
        form's check that a SKU is used once across products and variants."""
        wanted = {str(s) for s in skus}
        cursor = self.collection.find({"skus": {"$in": sorted(wanted)}}, {"sku": 1, "skus": 1})
        return {sku: (d["_id"], d["sku"]) for d in cursor for sku in d.get("skus") or [] if sku in wanted}

    def line_titles(self, skus):
        """``{sku: title}`` of the SKUs among ``skus`` that a product sells: the product's title,
        with a variant's options (``"Let There Be Rock — Vinyl"``, ``variants.line_title``).
        One read on the ``skus`` index. For reports naming what sold."""
        wanted = {str(s) for s in skus}
        cursor = self.read_collection.find({"skus": {"$in": sorted(wanted)}},
                                           {"sku": 1, "title": 1, "variants.sku": 1, "variants.options": 1})
        titles = {}
        for d in cursor:
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    titles[item["sku"]] = line_title(d.get("title", ""), item.get("options"))
        return titles

    def line_covers(self, skus):
        """``{sku: (product, variant)}`` for the SKUs among ``skus`` that a product sells: the
        ``product`` (a Product with what ``{% cover %}`` draws: image, title, details, images)
        and ``variant``, the variant's options as text ("Vinyl"; "" for a product without
        variants). One read on the ``skus`` index (read preference). For the checkout's
        order summary (its covers and variants)."""
        wanted = {str(s) for s in skus}
        fields = {"sku", "type", "title", "details", "image", "images"}
        cursor = self.read_collection.find({"skus": {"$in": sorted(wanted)}},
                                           {**dict.fromkeys(fields, 1), "variants.sku": 1, "variants.options": 1})
        covers = {}
        for d in cursor:
            product = self.from_document({k: v for k, v in d.items() if k != "variants"}, fields)
            for item in d.get("variants") or [d]:
                if item.get("sku") in wanted:
                    options = item.get("options") if item is not d else None
                    covers[item["sku"]] = (product, options_label(options) if options else "")
        return covers

    def count_by_category(self):
        """``{category_id: number of products listed in it}``, from one aggregation."""
        pipeline = [{"$unwind": "$categories"}, {"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return {row["_id"]: row["n"] for row in self.read_collection.aggregate(pipeline)}

    def count_by_category_list(self):
        """``[(category ids, number of products listed in exactly those), ...]``: one aggregation.

        Grouping on the whole ``categories`` array gives each distinct list
        once, so the caller can count a product once per category *and* once
        per ancestor (the admin tree's subtree counts), however many of its
        categories share that ancestor.
        """
        pipeline = [{"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return [(row["_id"] or [], row["n"]) for row in self.read_collection.aggregate(pipeline)]

    def sync(self, products, recount=True, bump=True):
        """Make the stored products match ``products`` (Product instances), keyed by SKU.

        One read of the categories' ancestors (for ``listed_in``), one of the
        existing SKUs, then one ``bulk_write`` of what is new or changed, then the versions of
        those products and of their categories (before and after) are bumped (one more write,
        ``writes.products_changing``): a product equal to its stored document is not written. The categories whose
        products change are marked before and recounted after
        (``ListingCount.objects.changing``: 3 more round trips). ``recount=False``
        skips that, for a bulk load into a catalog without kept counts whose caller
        recounts every category at its end (``populatedb``: ``recount_all``); ``bump=False``
        bumps no version, for a bulk load whose caller bumps the epoch at its end
        (``writes.catalog_reset``: one write rather than thousands of versions a batch).
        Products whose SKU is not in ``products`` are left alone; the details are checked
        first (``ProductType.objects.clean_products``). Returns ``{'created', 'updated', 'unchanged'}``.
        """
        products = catalog_model("ProductType").objects.clean_products(products)
        documents = [model_to_document(p, self.db) for p in products]
        ancestors = self._category_ancestors({c for d in documents for c in d.get("categories") or []})
        for document in documents:
            writes.derive_product_fields(document, ancestors)
        skus = [d["sku"] for d in documents]
        stored = {d["sku"]: d for d in self.collection.find({"sku": {"$in": skus}})}
        to_write, report, changes = [], {"created": 0, "updated": 0, "unchanged": 0}, []
        for document in documents:
            current = stored.get(document["sku"])
            if current is None:
                to_write.append(InsertOne(document))
                report["created"] += 1
                changes.append((None, writes.facts(document)))
                continue
            document["_id"] = current["_id"]
            if not document.get("image") and current.get("image"):
                document["image"] = current["image"]  # a cover staff uploaded stays
            if not document.get("images") and current.get("images"):
                document["images"] = current["images"]  # and the images (catalog/media/gallery.py)
            keep_images(document.get("variants"), current.get("variants"))  # and the variants' own
            if current == document:
                report["unchanged"] += 1
            else:
                to_write.append(ReplaceOne({"_id": current["_id"]}, document))
                report["updated"] += 1
                changes.append((writes.facts(current), writes.facts(document)))
        if to_write:
            with writes.products_changing(changes if bump else None, recount=recount):
                self.collection.bulk_write(to_write, ordered=False)
        return report

    def stored_facts(self, product_id):
        """``writes.facts`` of product ``product_id`` as stored, or None when there is no such
        product (one read from the primary: a save depends on it)."""
        document = self.collection.find_one({"_id": product_id}, writes.FACTS_FIELDS)
        return None if document is None else writes.facts(document)

    def _category_ancestors(self, ids):
        """``{category id: [ancestor ids]}`` (``CategoryManager.ancestor_ids``): one read."""
        return catalog_model("Category").objects.ancestor_ids(ids)

    def relist_under(self, category_id, relisted=()):
        """Recompute ``listed_in`` of every product listed in ``category_id`` or below it, after
        a move of that category (``CategoryManager.move``): one read of those products'
        category lists; when there are any, one read of the categories' (new) ancestors
        and one ``bulk_write`` of one ``update_many`` per distinct list, around which the
        categories ``relisted`` (those above it, before and after the move) are marked and
        recounted (``writes.relisting``). Returns how many distinct lists were
        rewritten. The caller bumps the versions (``writes.categories_changed``)."""
        cursor = self.collection.aggregate([{"$match": {"listed_in": category_id}},
                                            {"$group": {"_id": "$categories"}}])
        lists = [row["_id"] or [] for row in cursor]
        if not lists:
            return 0
        ancestors = self._category_ancestors({c for ids in lists for c in ids})
        with writes.relisting(relisted):
            self.collection.bulk_write([
                UpdateMany({"listed_in": category_id, "categories": ids},
                           {"$set": {"listed_in": listed_in(ids, ancestors)}})
                for ids in lists
            ], ordered=False)
        return len(lists)

    def delete_all(self):
        """Delete every product, and every category's kept count and kept facet counts;
        returns how many products. (``load_catalog --reset``.)"""
        try:
            return self.collection.delete_many({}).deleted_count
        finally:
            catalog_model("ListingCount").objects.forget_all()
            catalog_model("FacetCount").objects.forget_all()
            writes.catalog_reset()

    # -- storefront queries ("Product Catalog" use case "Operations") ----------------------

    def by_genre(self, genre, product_type=None):
        """Products of type ``product_type`` (default ``settings.CATALOG_GENRE_TYPE``) in ``genre``.

        The "Product Catalog" use case "Find albums by genre and sort by year produced", served by
        the ``(type, details.genre, details.issue_date -1)`` index. Returns a
        ``ProductQuery`` (count + one page: 2 round trips).
        """
        return ProductQuery(self, {
            "type": str(product_type or settings.CATALOG_GENRE_TYPE),
            "details.genre": str(genre),
        }, SORTS["newest"])

    def deals(self, min_pct_savings=0):
        """Products saving more than ``min_pct_savings`` percent, biggest saving first.

        The "Product Catalog" use case "Find products sorted by percentage discount descending",
        served by the ``pricing.pct_savings`` index. Ties come in ``_id``
        order. Returns a ``DealsListing``: counted and read per saving, so that a price
        edit re-reads only the savings it changes (``catalog/store/cache.py``).
        """
        return DealsListing(self, int(min_pct_savings), MOST_PCT_SAVINGS)

    def savings_counts(self, pcts):
        """``{pct: products saving exactly pct percent}`` for the whole percents ``pcts``, each
        cached under its ``savings:<pct>`` (bumped when a product's saving changes from or to
        it; ``cache.cached_many``). A saving not cached is summed from its counts per issue
        decade (``facet_parts.issue_part``), each cached under ``savings:<pct>:<part>``, so
        that a price edit recounts one decade of each saving it changes (one count on the
        ``pct_savings_issue_date`` index each)."""
        def count(missing):
            keys = [(pct, part) for pct in missing for part in PARTS]
            found = cached_many("savings-part", keys, lambda key: savings_part_scope(key[0], [key[1]]),
                                self._count_saving_parts, remember=False, keep=_held_savings)
            totals = dict.fromkeys(missing, 0)
            for (pct, _part), n in found.items():
                totals[pct] += n
            return totals

        return cached_many("savings-count", [int(p) for p in pcts], lambda pct: savings_scope([pct]), count)

    def _count_saving_parts(self, keys):
        """``{(pct, part): products}`` of ``keys`` (``(saving, issue decade)`` pairs): a few
        dated ones one count each, else one read of the issue dates of the savings named."""
        if len(keys) <= MOST_PARTS_BY_RANGE and all(part != UNDATED for _pct, part in keys):
            return {(pct, part): self.read_collection.count_documents(
                {"pricing.pct_savings": pct, "details.issue_date": part_range(part)}) for pct, part in keys}
        counts = dict.fromkeys(keys, 0)
        pcts = sorted({pct for pct, _part in keys})
        match = {"pricing.pct_savings": {"$gte": pcts[0], "$lte": pcts[-1]}}
        for document in self.read_collection.find(match, {"pricing.pct_savings": 1, "details.issue_date": 1}):
            key = (document["pricing"]["pct_savings"], issue_part((document.get("details") or {}).get("issue_date")))
            if key in counts:
                counts[key] += 1
        return counts

    def by_artist(self, artist):
        """The albums and TV seasons of ``artist`` (exact name), newest first.

        Served by the ``(details.artist, details.issue_date -1)`` index: only
        albums and TV seasons have an artist, so no type is named (an ``$in``
        of the two types made SecantusDB 0.7.0b3 scan). Returns a ``ProductQuery``.
        (docs/local-server-differences.md: local-server difference 17)
        """
        return ProductQuery(self, {"details.artist": str(artist)}, SORTS["newest"])

    def by_actor(self, actor):
        """Products of type ``settings.CATALOG_ACTOR_TYPE`` starring ``actor`` (exact), newest first.

        The "Product Catalog" use case "Find movies based on starring actor", served by the
        ``(type, details.actor, details.issue_date -1)`` index. Returns a
        ``ProductQuery``.
        """
        match = {"type": settings.CATALOG_ACTOR_TYPE, "details.actor": str(actor)}
        return ProductQuery(self, match, SORTS["newest"])

    def search_scope(self, text):
        """The cache scope of a search's facet counts: its words' (``words:<word>``), which a
        write of a product with one of them bumps when its searchable text or faceted values
        change (``catalog/store/writes.py``)."""
        return words_scope(search_words(text))

    def search_stages(self, text):
        """The ``$match`` filters of a search for ``text`` (a list, one per word), or None
        when it holds no word: for its facets (``catalog.listings.facets.facet_panel``)."""
        return search_stages(text)

    def search(self, text, page=1, per_page=24, sort=DEFAULT_SEARCH_SORT, refined=None, variant_options=None):
        """Products that have every word of ``text`` (a shopper's query) among their
        keywords, best match first (``sort="relevance"``) or by a key of ``SEARCH_SORTS``.
        ``refined``: the search's filters narrowed by chosen facets (``search_stages`` then
        ``catalog.listings.facets.facet_panel``), which replace the words' own; its cards then
        show the variant matching ``variant_options`` (``FacetPanel.variant_options``).

        Each product says what matched (``matched``). Returns a
        ``ProductListing`` (one round trip for count and page), or an empty
        ``ProductQuery`` (none) when ``text`` holds no word; KeyError for an
        unknown ``sort``. See ``search.search_listing``.
        """
        return search_listing(self, text, page=page, per_page=per_page, sort=sort, refined=refined,
                              variant_options=variant_options)

    def suggest(self, prefix, limit=8):
        """Up to ``limit`` products whose title starts with ``prefix`` (any case), by title.

        The "Product Catalog" use case's index-friendly prefix pattern over ``title_lower`` (see
        ``search.suggest_query``), served by its index. Returns a list of
        Products with ``sku`` and ``title`` only; ``[]`` for a blank prefix.
        One round trip.
        """
        query = suggest_query(prefix)
        if query is None:
            return []
        match, sort = query
        cursor = self.read_collection.find(match, {"sku": 1, "title": 1}).sort(sort).limit(int(limit))
        return [self.from_document(d, {"sku", "title"}) for d in cursor]



def _held_savings(counts):
    """The keys of ``counts`` (``{(pct, part): products}``) of the savings some product holds:
    the decades of a saving no product holds are not kept (a dozen cache entries each for
    the savings from 31 to 100 percent that a catalog seldom has); a product that comes to
    one has it read whole, a few products."""
    held = {pct for (pct, _part), n in counts.items() if n}
    return [key for key in counts if key[0] in held]
