"""The deals' reads, part of ``ListingManager`` (``Product.listings``): their counts per saving,
kept in the database (``SavingsCount.objects``) and cached, and a page's products read from
windows of ids, biggest saving first (``DealsMixin``: the same job, its own module).

``catalog.listings.query.DealsListing`` (``Product.listings.deals``) reads its count and pages
through these.
"""

from catalog.store.cache import cached, cached_many, savings_part_scope
from catalog.listings.cards import CardList
from catalog.listings.facet_parts import MOST_PARTS_BY_RANGE, PARTS, UNDATED, issue_part, part_range
from catalog.listings.query import CARD_FIELD_NAMES, WINDOWED_FROM
from catalog.listings.savings import current_tokens, id_bound, part_stamp, stamp, stamp_names
from catalog.store.siblings import catalog_model

#: The largest ``pricing.pct_savings`` (whole percent).
MOST_PCT_SAVINGS = 100


class DealsMixin:
    """The deals' counts and pages, part of ``ListingManager`` (needs ``read_collection``,
    ``with_availability``, ``card_from_document`` and ``_cards_of_order``)."""

    def savings_counts(self, pcts):
        """``{pct: products saving exactly pct percent}`` for the whole percents ``pcts``
        (``savings_kept``)."""
        return {pct: kept["listed"] for pct, kept in self.savings_kept(pcts).items()}

    def savings_kept(self, pcts):
        """``{pct: {"listed": products saving exactly pct percent, "first", "last"}}`` for the
        whole percents ``pcts`` (``first``/``last``: the hint of their lowest and highest
        ``_id``, or None: ``SavingsCount``), each cached under its ``savings:<pct>`` and
        ``savings-kept`` (``cache.cached_many``). A saving not cached is read from its count
        kept in the database (``SavingsCount.objects``: one read for all of them) when its
        stamp is current; else summed from its counts per issue decade
        (``facet_parts.issue_part``), each cached under ``savings:<pct>:<part>`` and kept in
        the same document stamped with that version's token (``part_stamp``), so that a
        price edit recounts one decade of each saving it changes (one count on the
        ``pct_savings_issue_date`` index each), in any process (before, a process's first
        recount of a saving read all its products: about 400 ms for 3,000), and kept over
        (one write)."""
        def count(missing):
            # The versions of the stamps, read before anything is counted (in a request,
            # with the cached values' own).
            tokens = current_tokens(sorted({name for pct in missing for name in stamp_names(pct)}))
            stamps = {pct: stamp(pct, tokens) for pct in missing}
            kept_counts = catalog_model("SavingsCount").objects
            found, stale = kept_counts.kept(stamps)
            rest = [pct for pct in missing if pct not in found]
            if rest:
                # Those of the decades of the savings to count, before counting them (one read).
                tokens.update(current_tokens(sorted({n for pct in rest for n in savings_part_scope(pct, PARTS)})))
                counted = self._count_savings(rest, {pct: stale.get(pct, {}).get("parts") or {} for pct in rest},
                                              tokens)
                values = {pct: {"listed": sum(counted[pct].values()),
                                "first": stale.get(pct, {}).get("first"), "last": stale.get(pct, {}).get("last"),
                                "parts": {str(part): {"stamp": part_stamp(pct, part, tokens), "n": n}
                                          for part, n in counted[pct].items()}}
                          for pct in rest}
                kept_counts.keep({pct: (stamps[pct], values[pct]) for pct in rest})
                found.update({pct: {k: v for k, v in values[pct].items() if k != "parts"} for pct in rest})
            return found

        return cached_many("savings-kept", [int(p) for p in pcts], stamp_names, count)

    def _count_savings(self, pcts, kept_parts, tokens):
        """``{pct: {part: products}}`` of the savings ``pcts`` per issue decade (cached, see
        ``savings_kept``): a decade not cached is taken from ``kept_parts`` (``{pct: {str(part):
        {"stamp", "n"}}}``, as kept in the database) when its stamp is ``part_stamp``'s at
        ``tokens`` (``{name: token}``, read before), else counted."""
        keys = [(pct, part) for pct in pcts for part in PARTS]

        def compute(missing):
            counts, rest = {}, []
            for pct, part in missing:
                kept = (kept_parts.get(pct) or {}).get(str(part))
                if isinstance(kept, dict) and kept.get("stamp") == part_stamp(pct, part, tokens) \
                        and isinstance(kept.get("n"), int):
                    counts[(pct, part)] = kept["n"]
                else:
                    rest.append((pct, part))
            if rest:
                counts.update(self._count_saving_parts(rest))
            return counts

        found = cached_many("savings-part", keys, lambda key: savings_part_scope(key[0], [key[1]]),
                            compute, remember=False, keep=_held_savings)
        counts = {pct: {} for pct in pcts}
        for (pct, part), n in found.items():
            counts[pct][part] = n
        return counts

    def keep_savings_counts(self, most=MOST_PCT_SAVINGS):
        """Count the products of every saving from 1 to ``most`` percent and keep the counts
        (``SavingsCount.objects``) with their ids' hints: the versions of the stamps (one
        read), one aggregation over the products saving anything (grouped by saving, on the
        ``pct_savings`` index), one write. For a bulk load's end (``populatedb``,
        ``load_catalog``), so that no shopper's first deals page counts them. Returns
        ``{pct: products}``."""
        pcts = list(range(1, int(most) + 1))
        tokens = current_tokens(sorted({name for pct in pcts for name in stamp_names(pct)}))
        pipeline = [{"$match": {"pricing.pct_savings": {"$gte": 1, "$lte": int(most)}}},
                    {"$group": {"_id": "$pricing.pct_savings", "n": {"$sum": 1},
                                "first": {"$min": "$_id"}, "last": {"$max": "$_id"}}}]
        values = {pct: {"listed": 0, "first": None, "last": None} for pct in pcts}
        for row in self.read_collection.aggregate(pipeline):
            if row["_id"] in values and isinstance(row["_id"], int) and not isinstance(row["_id"], bool):
                values[row["_id"]] = {"listed": row["n"], "first": row["first"], "last": row["last"]}
        catalog_model("SavingsCount").objects.keep({pct: (stamp(pct, tokens), v) for pct, v in values.items()})
        return {pct: v["listed"] for pct, v in values.items()}

    def deals_page(self, segments, hints, scope, fields=CARD_FIELD_NAMES):
        """A page of the deals (biggest saving first, then by ``_id``) as cards with their
        availability (a ``CardList``): ``segments`` ``[(pct, skip, take)]``, the savings it
        spans from the biggest down, with how many of each saving's products come before the
        page and how many it shows (``take`` None: all the rest); ``hints`` ``{pct: {"listed",
        "first", "last"}}`` (``savings_kept``); ``scope`` what the page's order is cached
        under (the savings from its lowest up).

        SecantusDB 0.7.0b3 never sorts from an index: a sort of one saving's products reads
        (docs/local-server-differences.md: local-server difference 6)
        all of them (about 3,300 at 100,000 products). So each saving's products are read
        from a window of ids below a bound, on the ``pct_savings_id`` index: when the window
        holds ``skip + take`` of them, those are the first of the saving (every other has a
        greater id). The bound is guessed from the saving's kept hints (its ids spread
        evenly between its first and last), twice the ids needed, then 4 times wider each
        time, then no bound (a real MongoDB serves each read from the same index). The
        page's order (SKUs) is cached under ``scope``, its cards read by SKU under their
        products' versions (``cards_by_sku``), then their stock (one read)."""
        def read():
            order = []
            for pct, skip, take in segments:
                order += self._saving_window(pct, skip, take, hints.get(pct) or {})
            return order

        order = cached("deals-order", tuple(segments), read, scope)
        return CardList(self.with_availability(self._cards_of_order(order)), lambda d: self.card_from_document(d, fields))

    def _saving_window(self, pct, skip, take, hint):
        """The ``{_id, sku}`` of the products saving ``pct`` percent ``[skip:skip + take]`` (``take``
        None: to the end) by ``_id``, read from windows of ids (``deals_page``)."""
        listed, first, last = hint.get("listed"), hint.get("first"), hint.get("last")
        fraction = None
        if take is not None and listed and first is not None and last is not None and listed > WINDOWED_FROM:
            fraction = 2 * (skip + take) / listed
        while True:
            match = {"pricing.pct_savings": pct}
            if fraction is not None and fraction < 1:
                match["_id"] = {"$lt": id_bound(first, last, fraction)}
            pipeline = [{"$match": match}, {"$sort": {"_id": 1}}, {"$skip": skip}]
            if take is not None:
                pipeline.append({"$limit": max(take, 1)})
            pipeline.append({"$project": {"sku": 1}})
            documents = list(self.read_collection.aggregate(pipeline))
            if "_id" not in match or len(documents) >= take:
                return documents
            fraction *= 4

    def _count_saving_parts(self, keys):
        """``{(pct, part): products}`` of ``keys`` (``(saving, issue decade)`` pairs), saving by
        saving: a few dated decades of a saving one count each (on ``pct_savings_issue_date``),
        else one read of that saving's issue dates (an equality on ``pct_savings_id``), or of the
        range of them when more than ``MOST_PARTS_BY_RANGE`` savings are read whole (a first
        count). So an edit moving a product from 17 % to 29 % recounts those two, not the
        thirteen between (at 100,000 products, 9,571 products read against about 1,000)."""
        counts = dict.fromkeys(keys, 0)
        by_pct = {}
        for pct, part in keys:
            by_pct.setdefault(pct, []).append(part)
        whole = []
        for pct, parts in sorted(by_pct.items()):
            if len(parts) <= MOST_PARTS_BY_RANGE and UNDATED not in parts:
                for part in parts:
                    counts[(pct, part)] = self.read_collection.count_documents(
                        {"pricing.pct_savings": pct, "details.issue_date": part_range(part)})
            else:
                whole.append(pct)
        # Many savings read whole (a first count): one read of their range; a few: one each.
        matches = ([{"pricing.pct_savings": {"$gte": whole[0], "$lte": whole[-1]}}] if len(whole) > MOST_PARTS_BY_RANGE
                   else [{"pricing.pct_savings": pct} for pct in whole])
        for match in matches:
            for document in self.read_collection.find(match, {"pricing.pct_savings": 1, "details.issue_date": 1}):
                key = (document["pricing"]["pct_savings"], issue_part((document.get("details") or {}).get("issue_date")))
                if key in counts:
                    counts[key] += 1
        return counts


def _held_savings(counts):
    """The keys of ``counts`` (``{(pct, part): products}``) of the savings some product holds:
    the decades of a saving no product holds are not kept (a dozen cache entries each for
    the savings from 31 to 100 percent that a catalog seldom has); a product that comes to
    one has it read whole, a few products."""
    held = {pct for (pct, _part), n in counts.items() if n}
    return [key for key in counts if key[0] in held]
