"""``Product.search`` (``SearchManager``): the storefront's search ("Product Catalog" use case):
the products holding every word of a shopper's query, and search-as-you-type over title
prefixes. The queries are built in ``catalog/listings/search.py``; the results are listings
read through ``Product.listings``.
"""

from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.store.cache import cached
from catalog.store.siblings import catalog_model
from catalog.products.keywords import search_words
from catalog.listings.facets import facet_fields
from catalog.listings.search_summary import chosen_view, source_projection, summary_id, summary_scope
from catalog.listings import search as search_module
from catalog.listings.search import DEFAULT_SEARCH_SORT, search_listing, search_stages, suggest_query

#: The ``batchSize`` of what ranks a search (documents): all its matches in the first reply
#: (a reply holds at most 16 MB on any server; past that the driver asks for the rest).
_ONE_BATCH = 100_000


class SearchManager(MongoCollectionMixin, models.Manager):
    """``Product.search``: a search's results, its filters and cache scope for its facets, what
    ranks a search by relevance, and the suggestions of the search box."""

    def search_scope(self, text):
        """The cache scope of a search's facet counts: its words' (``words:<word>``), which a
        write of a product with one of them bumps when its searchable text or faceted values
        change (``catalog/store/writes.py``), and ``search-kept`` (the kept summaries')."""
        return summary_scope(search_words(text))

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
        unknown ``sort``. See ``search.search_listing``; its count and page are read
        through ``Product.listings``.
        """
        return search_listing(self.model.listings, text, page=page, per_page=per_page, sort=sort, refined=refined,
                              variant_options=variant_options)

    def search_ranked(self, words, bands=None):
        """What a search by relevance for ``words`` (a list of search words) shows without a
        choice of facets, or with price ``bands`` chosen (band keys of ``facets.BAND_KEYS``):
        ``{"total": products holding every word (in the chosen bands), "order": its first
        results as ``{"sku", "rank", "matched_tracks", "matched_people"}`` best match first
        (``SEARCH_SORTS["relevance"]``; at most ``search.RANKED_KEPT``, fewer when the kept
        parts tell fewer for sure: ``search_summary.merged_order``), "facets": {"fields":
        [(code, field)], "counts": {"total", "values": {code: {value: n}}, "bands": {band key:
        n}}}}``; the bands' counts are the whole search's (a facet leaves out its own choice).

        From the search's summary (``search_summary``), cached under the words' versions and
        ``search-kept``: kept in the database (``SearchSummary.objects``: one read by ``_id``
        when its stamp is current), else counted from one read of the matches and kept (one
        write). That read is, of one word a ``find`` on the ``keywords`` index; of several, when
        each word's summary is current, a ``find`` by ``_id`` of the products holding them all
        (their kept ``ids`` intersected: ``SearchSummary.objects.matching``, one read), else an
        aggregation of one ``$match`` per word, the rarest first (the one the index serves:
        the kept summaries' totals tell which); projected to what ranks a product
        (``ranking.RANK_SOURCE_FIELDS``) and what its facets count. The ranking
        (``ranking.rank_document``, the same as ``search_ranking``'s stages) and the facet
        counts (as ``Product.facets.facet_counts`` counts them) are computed here: the local
        server evaluates the ranking's expressions for every match in its expression engine
        (the aggregation took 424 to 512 ms for the 252 matches of a word at 20,000 products,
        at load 10, against 57 to 139 ms for this read) and copies every match once per facet
        (docs/local-server-differences.md: local-server difference 22); here each match is
        read once."""
        words, most = list(words), search_module.RANKED_KEPT
        chosen = tuple(sorted(bands)) if bands else ()
        fields = facet_fields()
        summaries = catalog_model("SearchSummary").objects

        def count(summarizer, ids=None, totals=None):
            projection = source_projection(fields)
            # Every match in the first reply (``batchSize``: the server's default first batch is
            # 101 documents, then a getMore per 16 MB): one round trip however many match.
            if ids is not None:  # several words, each kept: the products holding them all, by _id
                documents = self.read_collection.find({"_id": {"$in": ids}}, projection, batch_size=_ONE_BATCH) \
                    if ids else ()
            elif len(words) == 1:  # a find: the local server projects it faster than a $project stage
                documents = self.read_collection.find({"keywords": words[0]}, projection,
                                                      batch_size=_ONE_BATCH)
            else:  # the rarest word first: the one the index serves (local-server difference 14)
                totals = totals or {}
                ordered = sorted(words, key=lambda word: (totals.get(word, _ONE_BATCH), word))
                documents = self.read_collection.aggregate(
                    [*({"$match": {"keywords": word}} for word in ordered), {"$project": projection}],
                    batchSize=_ONE_BATCH)
            for document in documents:
                summarizer.add(document)

        def summary():
            return summaries.summary(words, fields, count)

        def read():
            found = cached("search-summary", (summary_id(words), [f["field"] for f in fields]), summary,
                           summary_scope(words))
            view = chosen_view(found, fields, chosen)
            order = [{"sku": row[3], "rank": row[0], "matched_tracks": row[4], "matched_people": row[5]}
                     for row in view["order"][:int(most)]]
            return {"total": view["total"], "order": order,
                    "facets": {"fields": [(f["code"], f["field"]) for f in fields], "counts": view["counts"]}}

        return cached("search-ranked", (tuple(words), int(most), chosen), read, summary_scope(words))

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
