"""A search's summary kept in the database (``SearchSummary.objects``,
``catalog/listings/search_summary.py``): a search's first visit in a cold cache reads one
document rather than every match, shows what the aggregation ranks and counts, with price bands
chosen too, and an edit shows on the next request (the summary's stamp names its words'
versions and ``search-kept``).

"Cold" is a cache that holds nothing of the catalog (the epoch bumped); what is kept in the
database stays.
"""

import pytest
from django.core.cache import caches

from catalog.listings import search_summary
from catalog.listings.facets import band_filter, facet_fields
from catalog.listings.search import search_stages
from catalog.models import CatalogVersion, Pricing, Product, SearchSummary
from core.mongo.counter import count_operations
from tests.support.cold_pages import PER_PAGE, aggregated, cold_get, reader  # noqa: F401 (a fixture)
from tests.support.examined import documents_examined
from tests.support.products import make_product
from tests.support.threads import save_during_a_count



@pytest.fixture
def searchable(reader):
    """43 products holding "night" in each place a search ranks, at prices in every band (and
    one without a price), a few holding "blue" too, one's text not ASCII."""
    for n in range(40):
        place = n % 4
        title = f"Night {n:02d}" if place == 0 else f"Album {n:02d}"
        artist = "Night Riders" if place == 1 else f"Artist {n % 3}"
        tracks = ["Day", f"Night {n}"] if place == 2 else ["Day"]
        description = "at night" if place == 3 else ""
        make_product(title, artist=artist, tracks=tracks, description=description,
                     genre=("Rock",) if n % 2 else ("Jazz", "Blues"),
                     list_cents=3000, retail_cents=300 + 700 * (n % 5), sku=f"N-{n:02d}")
    make_product("Blue Night", artist="Blue", sku="B-1", retail_cents=900)
    make_product("Blue Day", artist="Night Owl", sku="B-2", retail_cents=2500)
    make_product("Straße", artist="Ölnight Night", sku="U-1", retail_cents=700)  # not ASCII
    Product.objects.collection.update_one({"sku": "N-39"}, {"$unset": {"pricing.retail": ""}})
    CatalogVersion.objects.bump()
    return reader


def aggregated_counts(text, bands=()):
    """The facet counts of ``text`` as the facets' own aggregation counts them (``$eq`` spelt
    out: the same filter, not a search's)."""
    stages = [{"keywords": {"$eq": s["keywords"]}} for s in search_stages(text)]
    filters = {"price": band_filter(bands)} if bands else {}
    return Product.facets.facet_counts(stages, facet_fields(), filters, ("products",))


def shown(response):
    return [(p.sku, p.matched) for p in response.context["page"].object_list]


def test_a_search_kept_on_its_first_visit_is_read_whole_on_a_cold_one(searchable):
    first, _ops = cold_get(searchable, "/search/?q=night")
    response, ops = cold_get(searchable, "/search/?q=night")
    count, expected = aggregated("night")
    assert response.context["page"].paginator.count == count == 43
    assert shown(response) == shown(first) == expected[:PER_PAGE]
    # the summary (one document), then the page's cards by SKU: no match read
    assert documents_examined(ops, "search_summaries") == 1
    assert documents_examined(ops, "products") == PER_PAGE
    assert ("search_summaries", "update") not in ops.operations


@pytest.mark.parametrize("text", ["night", "blue night", "NIGHT blue", "owl", "nothing"])
def test_a_kept_summary_shows_what_the_aggregations_give(searchable, text):
    searchable.get("/search/", {"q": text})
    CatalogVersion.objects.bump()
    count, expected = aggregated(text)
    with count_operations() as ops:
        results = Product.search.search(text)
        assert len(results) == count
        assert [(p.sku, p.matched) for p in results[0:500]] == expected
        counts = Product.facets.facet_counts(search_stages(text), facet_fields(), {},
                                             Product.search.search_scope(text))
    assert counts == aggregated_counts(text)
    assert ("search_summaries", "update") not in ops.operations  # read, not counted again


@pytest.mark.parametrize("bands", [("0-5",), ("5-10",), ("10-20",), ("20-",), ("0-5", "20-")])
def test_a_search_with_price_bands_shows_what_the_aggregations_give(searchable, bands):
    query = "&".join(f"price={band}" for band in bands)
    cold_get(searchable, f"/search/?q=night&{query}")
    response, ops = cold_get(searchable, f"/search/?q=night&{query}")
    count, expected = aggregated("night", bands)
    assert response.context["page"].paginator.count == count
    assert shown(response) == expected[:PER_PAGE]
    counts = aggregated_counts("night", bands)
    facets = response.context["facets"]
    assert {b["value"]: b["count"] for b in facets.bands} == {b: counts["bands"].get(b, 0) for b in
                                                              ("0-5", "5-10", "10-20", "20-")}
    genres = next(g for g in facets.groups if g["code"] == "genre")
    assert {v["value"]: v["count"] for v in genres["values"]} == dict(counts["values"]["genre"])
    # from the kept summary: no match read, the page's cards only
    assert documents_examined(ops, "products") <= PER_PAGE


def test_pages_past_what_the_parts_tell_are_ranked_by_the_aggregation(searchable, monkeypatch):
    monkeypatch.setattr(search_summary, "PART_KEPT", 3)
    count, expected = aggregated("night")
    for page in (1, 2, 3, 4, 5):
        response, _ops = cold_get(searchable, f"/search/?q=night&page={page}")
        assert shown(response) == expected[(page - 1) * PER_PAGE:page * PER_PAGE]
    assert response.context["page"].paginator.count == count


def test_merged_order_stops_at_the_first_incomplete_parts_last_row():
    complete = {"order": [[0, "A", 1], [2, "C", 2], [4, "Z", 3]], "complete": True}
    cut = {"order": [[0, "B", 4], [1, "B", 5]], "complete": False}
    assert search_summary.merged_order([complete, cut]) == [[0, "A", 1], [0, "B", 4], [1, "B", 5]]
    assert search_summary.merged_order([complete]) == complete["order"]


def test_an_edit_shows_on_the_next_request_in_any_process(searchable):
    cold_get(searchable, "/search/?q=night")
    product = Product.objects.get(sku="N-03")
    product.title = "A Night Owl"  # from a match in the description to one in the title, first
    product.save()
    caches["default"].clear()  # another process: its cache holds nothing; the kept summary is stale
    response = searchable.get("/search/?q=night")
    _count, expected = aggregated("night")
    assert shown(response) == expected[:PER_PAGE]
    assert ("N-03", "title") in shown(response)
    kept = SearchSummary.objects.collection.find_one({"_id": "night"})
    assert any(row[3] == "N-03" and row[0] == 0 for part in kept["parts"] for row in part[4])


def test_a_price_edit_across_bands_shows_on_the_next_request(searchable):
    cold_get(searchable, "/search/?q=night&price=0-5")
    product = Product.objects.get(sku="N-01")  # 10.00: into the first band
    product.pricing = Pricing.from_prices(3000, 200)
    product.save()
    caches["default"].clear()
    response = searchable.get("/search/?q=night&price=0-5")
    count, expected = aggregated("night", ("0-5",))
    assert response.context["page"].paginator.count == count
    assert "N-01" in [sku for sku, _m in expected] and shown(response) == expected[:PER_PAGE]


def test_a_load_that_bumps_search_kept_makes_the_summary_counted_again(searchable, settings):
    cold_get(searchable, "/search/?q=night")
    settings.CATALOG_VERSIONS_BUMP_LIMIT = 1  # any write names more: it bumps the epoch and search-kept
    product = Product.objects.get(sku="N-05")
    product.title = "Night Again"
    product.save()
    response, ops = cold_get(searchable, "/search/?q=night")
    assert ("search_summaries", "update") in ops.operations
    _count, expected = aggregated("night")
    assert shown(response) == expected[:PER_PAGE]


def test_a_multi_word_search_reads_its_rarest_word_first(searchable):
    SearchSummary.objects.keep_words(facet_fields(), least=1)
    SearchSummary.objects.collection.delete_one({"_id": "day"})  # one word not kept: not by ids
    CatalogVersion.objects.bump()
    with count_operations() as ops:
        Product.search.search_ranked(["night", "day", "blue"])
    command = ops.commands[ops.operations.index(("products", "aggregate"))]
    assert command["pipeline"][0] == {"$match": {"keywords": "blue"}}  # 3 products, night 43


def test_a_multi_word_search_of_kept_words_reads_only_the_products_holding_them_all(searchable):
    SearchSummary.objects.keep_words(facet_fields(), least=1)
    product = Product.objects.get(sku="N-07")  # after the words were kept: "blue" bumped
    product.title = "Blue Album 07"
    product.save()
    count, expected = aggregated("night blue")
    assert count == 3
    # each word counted again on its own first (both summaries stale), then the pair from the ids
    Product.search.search_ranked(["blue"])
    Product.search.search_ranked(["night"])
    response, ops = cold_get(searchable, "/search/?q=blue+night")
    assert shown(response) == expected
    assert ("products", "aggregate") not in ops.operations
    assert documents_examined(ops, "products") == count + count  # the 3 matches by _id, their cards
    counts = Product.facets.facet_counts(search_stages("night blue"), facet_fields(), {},
                                         Product.search.search_scope("night blue"))
    assert counts == aggregated_counts("night blue")


def test_keep_words_keeps_what_a_search_would(searchable):
    assert SearchSummary.objects.keep_words(facet_fields(), least=2) >= 2
    kept = SearchSummary.objects.collection.find_one({"_id": "night"})
    assert kept["total"] == 43
    assert SearchSummary.objects.collection.find_one({"_id": "02"}) is None  # fewer than 2 products
    response, ops = cold_get(searchable, "/search/?q=night")
    assert ("search_summaries", "update") not in ops.operations
    assert documents_examined(ops, "products") == PER_PAGE
    SearchSummary.objects.forget_all()
    recounted, _ops = cold_get(searchable, "/search/?q=night")
    assert shown(recounted) == shown(response)
    assert SearchSummary.objects.collection.find_one({"_id": "night"})["parts"] == kept["parts"]


def test_deleting_every_product_forgets_the_summaries(searchable):
    cold_get(searchable, "/search/?q=night")
    Product.writes.delete_all()
    assert SearchSummary.objects.collection.count_documents({}) == 0
    response, _ops = cold_get(searchable, "/search/?q=night")
    assert response.context["page"].paginator.count == 0


@pytest.mark.parametrize("text", ['night" $where', "{$ne: 1} night", ".* night"])
def test_hostile_text_keys_a_summary_by_its_words_only(searchable, text):
    CatalogVersion.objects.bump()
    assert searchable.get("/search/", {"q": text}).status_code == 200
    ids = {d["_id"] for d in SearchSummary.objects.collection.find({}, {"_id": 1})}
    assert ids <= {"night", "night where", "ne night", "1 ne night"}


def test_word_ranks_rank_as_the_pattern_does():
    from catalog.listings.ranking import rank_document

    documents = [
        {"_id": 1, "title": "Night_Owl nights NIGHT", "details": {"artist": "Owl", "tracks": [
            {"title": "Knight"}, {"title": "x night-time"}, {"title": 5}, {"title": "Night"}]}},
        {"_id": 2, "title": "Film", "details": {"actor": ["Ann NIGHT"], "director": ["Bo"], "tracks": "no"}},
        {"_id": 3, "title": None, "details": {"artist": "Night Riders 2"}},
        {"_id": 4, "title": "Day", "details": None},
    ]
    for document in documents:
        ranks = search_summary.word_ranks(document)
        for word in ("night", "night_owl", "nights", "owl", "knight", "x", "time", "ann", "bo", "2", "day", "none"):
            assert ranks(word) == rank_document(document, [word]), (document["_id"], word)
    assert search_summary.word_ranks({"_id": 5, "title": "Straße", "details": {}}) is None  # ranked by the pattern


def test_a_summary_too_large_is_not_kept_and_a_word_too_common_keeps_no_ids(searchable, monkeypatch):
    monkeypatch.setattr(search_summary, "MOST_BYTES_KEPT", 100)
    response, _ops = cold_get(searchable, "/search/?q=night")
    assert response.context["page"].paginator.count == 43
    assert SearchSummary.objects.collection.count_documents({}) == 0
    monkeypatch.setattr(search_summary, "MOST_BYTES_KEPT", 8_000_000)
    monkeypatch.setattr(search_summary, "MOST_IDS_KEPT", 10)
    SearchSummary.objects.keep_words(facet_fields(), least=1)
    assert "ids" not in SearchSummary.objects.collection.find_one({"_id": "night"})
    assert "ids" in SearchSummary.objects.collection.find_one({"_id": "blue"})
    response, ops = cold_get(searchable, "/search/?q=night+blue")
    assert ("products", "aggregate") in ops.operations  # from the rarest word's matches
    assert [p.sku for p in response.context["page"].object_list] == [sku for sku, _m in aggregated("night blue")[1]]


def test_a_price_given_to_a_product_without_one_shows_in_its_band_on_the_next_request(searchable):
    first = searchable.get("/search/?q=night&price=20-")
    product = Product.objects.get(sku="N-39")  # no retail price: in no band's filter
    product.pricing = Pricing.from_prices(3000, 2500)  # the last band, where band_of counted it already
    product.save()
    caches["default"].clear()
    response = searchable.get("/search/?q=night&price=20-")
    count, expected = aggregated("night", ("20-",))
    assert response.context["page"].paginator.count == count == first.context["page"].paginator.count + 1
    assert shown(response) == expected[:PER_PAGE]


def _kept(word):
    """The kept summary of ``word`` as compared with a count: its stamp left out, its ids sorted."""
    document = SearchSummary.objects.collection.find_one({"_id": word}, {"counted_at": 0, "stamp": 0})
    return {**document, "ids": sorted(document.get("ids", []))}


def _counted_again(client, word):
    """The summary of ``word`` counted from the products now (the kept one forgotten first)."""
    SearchSummary.objects.collection.delete_one({"_id": word})
    cold_get(client, f"/search/?q={word}")
    return _kept(word)


def _save(sku, **changes):
    product = Product.objects.get(sku=sku)
    for name, value in changes.items():
        if name == "retail":
            product.pricing = Pricing.from_prices(3000, value)
        elif name == "tracks":
            product.details["tracks"] = [{"number": n + 1, "title": t, "duration": 1000, "price": 99}
                                         for n, t in enumerate(value)]
        elif name in ("artist", "genre"):
            product.details[name] = value
        else:
            setattr(product, name, value)
    product.save()


SAVES = [
    ("N-01", {"retail": 200}),                      # a price across bands
    ("N-03", {"title": "A Night Owl"}),             # from the description to the title: its rank
    ("N-05", {"genre": ["Soul"]}),                  # a facet value
    ("B-2", {"artist": "Day Owl"}),                 # loses the word
    ("D-1", {"title": "Day Into Night"}),           # gains it
    ("N-06", {"tracks": ["Day", "Night Again"]}),   # a matched track
]


def test_a_save_moves_the_kept_summary_rather_than_leaving_the_search_to_count(searchable):
    make_product("Day Only", artist="Sun", sku="D-1", retail_cents=1500)
    cold_get(searchable, "/search/?q=night")  # kept
    for sku, changes in SAVES:
        _save(sku, **changes)
        caches["default"].clear()
        response, ops = cold_get(searchable, "/search/?q=night")
        # the summary moved by the save: read whole, no match read, nothing kept anew
        assert documents_examined(ops, "products") == PER_PAGE, (sku, ops.operations)
        assert ("search_summaries", "update") not in ops.operations, sku
        count, expected = aggregated("night")
        assert response.context["page"].paginator.count == count
        assert shown(response) == expected[:PER_PAGE], sku
        moved = _kept("night")
        assert moved == _counted_again(searchable, "night"), sku


def test_a_moved_summary_past_its_kept_rows_shows_what_the_aggregation_gives(searchable, monkeypatch):
    monkeypatch.setattr(search_summary, "PART_KEPT", 3)  # every part incomplete
    cold_get(searchable, "/search/?q=night")
    for sku, changes in [("N-02", {"title": "Night Zero"}), ("N-10", {"retail": 2600}), ("N-00", {"title": "Album"})]:
        _save(sku, **changes)
        caches["default"].clear()
        count, expected = aggregated("night")
        for page in (1, 2, 3):
            response, _ops = cold_get(searchable, f"/search/?q=night&page={page}")
            assert response.context["page"].paginator.count == count
            assert shown(response) == expected[(page - 1) * PER_PAGE:page * PER_PAGE], (sku, page)


def test_a_count_racing_a_save_is_not_kept_where_the_save_moves_the_summary(searchable, monkeypatch):
    """A reader counts a search while a save of one of its products runs, and another reader
    has kept the summary at the versions from before the save: the count holds the save, so it
    must not replace that summary at those versions, which the save then moves by its change
    (moved twice). Fails without the reader's second read of the versions
    (``SearchSummaryManager.summary``)."""
    from catalog.listings.search_shift import WordsShift

    cold_get(searchable, "/search/?q=night")
    before_the_save = SearchSummary.objects.collection.find_one({"_id": "night"})
    SearchSummary.objects.collection.delete_one({"_id": "night"})  # the reader counts
    join = save_during_a_count(
        monkeypatch, lambda: _save("N-01", retail=200),
        count=(search_summary, "Summarizer"), keep=(search_summary.SearchSummaryManager, "summary"),
        shift=WordsShift,
        # another reader's summary, kept at the versions from before the save, once this one
        # has found none
        before_save=lambda: SearchSummary.objects.collection.insert_one(before_the_save))
    cold_get(searchable, "/search/?q=night&price=0-5")
    join()
    monkeypatch.undo()
    caches["default"].clear()
    for bands in ((), ("0-5",), ("10-20",)):
        response, _ops = cold_get(searchable, "/search/?q=night" + "".join(f"&price={b}" for b in bands))
        count, expected = aggregated("night", bands)
        assert response.context["page"].paginator.count == count, bands
        assert shown(response) == expected[:PER_PAGE], bands
    assert _kept("night") == _counted_again(searchable, "night")
