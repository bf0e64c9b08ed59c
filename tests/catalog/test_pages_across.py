"""The pages across categories on their first visit: deals, search and the home page read about
what they show (``catalog/listings/deals.py``, ``Product.search.search_ranked``,
``ListingManager.newest_page``'s kept window), and show exactly what they showed before.

- Deals: their counts per saving are kept in the database (``savings_counts``), stamped with
  the versions a write bumps, so a cold page reads them rather than counting the deals, and a
  page reads each saving's products from a window of ids on the ``pct_savings_id`` index.
- Search by relevance: one lean read of its matches, ranked and faceted in the process, where
  the server ranked them in one aggregation and counted the facets in another.
- Home: its newest products from where the list ended last time (``newest_windows``).

"Cold" is a cache that holds nothing of the catalog (the epoch bumped); what is kept in the
database stays.
"""

import datetime

import pytest
from bson import ObjectId

from catalog.listings import ranking
from catalog.listings import search as search_module
from catalog.listings import search_summary
from catalog.listings.facets import facet_fields
from catalog.listings.savings import current_tokens, stamp, stamp_names
from catalog.listings.search import search_stages
from catalog.models import CatalogVersion, Pricing, Product, SavingsCount
from catalog.products.keywords import search_words
from catalog.store.cache import words_scope
from core.mongo.counter import count_operations
from tests.support.cold_pages import PER_PAGE, aggregated, cold_get, reader  # noqa: F401 (a fixture)
from tests.support.examined import documents_examined
from tests.support.products import make_product



def skus_shown(response):
    return [p.sku for p in response.context["page"].object_list]


# -- deals -------------------------------------------------------------------------------


def album(number, retail_cents, moment=None, year=2020):
    """An unsaved album at 10.00 sold for ``retail_cents``, its id made at ``moment``."""
    product = Product(sku=f"D-{number:04d}", type="Audio Album", title=f"Deal {number}",
                      pricing=Pricing.from_prices(1000, retail_cents),
                      details={"artist": "Artist", "genre": ["Rock"], "tracks": [],
                               "issue_date": datetime.datetime(year, 1, 1, tzinfo=datetime.UTC)})
    if moment is not None:
        # ObjectIds a second apart, as a catalog written over time has them.
        product.id = ObjectId.from_datetime(moment)
    return product


def plain_deals(threshold):
    documents = Product.objects.collection.find({"pricing.pct_savings": {"$gt": threshold}})
    return [d["sku"] for d in sorted(documents, key=lambda d: (-d["pricing"]["pct_savings"], d["_id"]))]


def plain_savings():
    counts = {}
    for document in Product.objects.collection.find({}, {"pricing.pct_savings": 1}):
        pct = document["pricing"]["pct_savings"]
        counts[pct] = counts.get(pct, 0) + 1
    return {pct: n for pct, n in counts.items() if pct >= 1}


def current_kept():
    """``{pct: listed}`` of the savings kept at their current stamp, those listing any."""
    pcts = range(1, 101)
    tokens = current_tokens(sorted({name for pct in pcts for name in stamp_names(pct)}))
    found, _stale = SavingsCount.objects.kept({pct: stamp(pct, tokens) for pct in pcts})
    return {pct: kept["listed"] for pct, kept in found.items() if kept["listed"]}


@pytest.fixture
def many_deals(reader):
    """250 albums saving 20 % (ids a second apart) and 25 saving 10 %, their counts kept as
    ``populatedb`` leaves them."""
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    Product.writes.sync([album(n, 800, start + datetime.timedelta(seconds=n)) for n in range(250)]
                        + [album(250 + n, 900, start + datetime.timedelta(seconds=250 + n)) for n in range(25)])
    assert Product.listings.keep_savings_counts()[20] == 250
    return reader


def test_a_cold_deals_page_reads_the_kept_counts_and_a_window_of_its_saving(many_deals):
    response, ops = cold_get(many_deals, "/deals/?min=5")
    assert skus_shown(response) == plain_deals(5)[:PER_PAGE]
    assert response.context["page"].paginator.count == 275
    # No product counted; the first products of the saving from a window of about twice
    # the page's ids (their ids a second apart), then the page's cards by SKU. Before: each
    # saving's products counted (275) and the biggest saving's sorted (250).
    assert documents_examined(ops, "products") <= 3 * PER_PAGE + PER_PAGE, documents_examined(ops)
    assert documents_examined(ops, "savings_counts") <= 100


def test_an_edit_between_two_savings_recounts_those_two_not_the_savings_between(many_deals):
    """A product moved from 10 % to 20 % makes those two savings counted again, each read on its
    own, not the range from 10 to 20 (which holds 200 products at 15 % here)."""
    start = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    Product.writes.sync([album(1000 + n, 850, start + datetime.timedelta(seconds=n)) for n in range(200)])
    Product.listings.keep_savings_counts()
    moved = Product.objects.get(sku="D-0250")
    moved.pricing = Pricing.from_prices(1000, 800)
    moved.save()
    response, ops = cold_get(many_deals, "/deals/?min=5")
    assert response.context["page"].paginator.count == 475
    assert skus_shown(response) == plain_deals(5)[:PER_PAGE]
    # The two savings' 275 products, and the page's window and cards; not the 200 at 15 %.
    assert documents_examined(ops, "products") <= 275 + 4 * PER_PAGE, documents_examined(ops)


@pytest.mark.parametrize("page", [2, 25, 26, 28])
def test_deals_pages_across_savings_equal_the_plain_sort(many_deals, page):
    response, _ops = cold_get(many_deals, f"/deals/?min=5&page={page}")
    assert skus_shown(response) == plain_deals(5)[(page - 1) * PER_PAGE:page * PER_PAGE]


def test_kept_savings_counts_are_right_after_every_write(many_deals):
    reader = many_deals
    checks = 0

    def check():
        nonlocal checks
        for threshold in (0, 15):
            expected = plain_deals(threshold)
            for page in (1, 2, 26):
                if (page - 1) * PER_PAGE >= max(len(expected), 1):
                    continue
                response, _ops = cold_get(reader, f"/deals/?min={threshold}&page={page}")
                assert response.context["page"].paginator.count == len(expected)
                assert skus_shown(response) == expected[(page - 1) * PER_PAGE:page * PER_PAGE]
        # what is kept at the current versions (read by the visits above) is what the products hold
        assert current_kept() == plain_savings()
        checks += 1

    check()
    product = Product.objects.get(sku="D-0003")  # 20 % -> 40 %: first of the deals
    product.pricing = Pricing.from_prices(1000, 600)
    product.save()
    check()
    Product.objects.get(sku="D-0260").delete()  # a 10 % deal deleted
    check()
    make_product("New deal", list_cents=1000, retail_cents=850, sku="D-NEW")  # a 15 % deal created
    check()
    Product.writes.sync([album(7, 1000)])  # D-0007 no saving any more (the loaders' path)
    check()
    Product.writes.delete_all()
    check()
    assert checks == 6


def test_a_load_that_bumps_the_epoch_makes_the_kept_counts_counted_again(many_deals, settings):
    settings.CATALOG_VERSIONS_BUMP_LIMIT = 3  # a sync naming more versions bumps the epoch instead
    Product.writes.sync([album(n, 700) for n in range(0, 40)])  # 40 albums from 20 % to 30 %
    response, _ops = cold_get(many_deals, "/deals/?min=5")
    assert response.context["page"].paginator.count == 275
    assert skus_shown(response) == plain_deals(5)[:PER_PAGE]
    assert current_kept() == plain_savings() == {30: 40, 20: 210, 10: 25}


# -- search by relevance -----------------------------------------------------------------


@pytest.fixture
def searchable(reader):
    """Albums and films whose words match in each place a search ranks, in mixed case."""
    make_product("Night Flight", artist="The Owls", tracks=["Morning"], sku="S-TITLE-A")
    make_product("a night out", artist="Nobody", sku="S-TITLE-B")
    make_product("Owls", artist="NIGHT Riders", tracks=["Blue night"], sku="S-ARTIST")
    make_product("Songs", artist="Someone", tracks=["Day", "Midnight", "Into the Night", "Night again"],
                 sku="S-TRACK")
    make_product("Film", type="Film", actor=["Ann Night"], director=["Bo Blue"], sku="S-CAST")
    make_product("Plain", artist="X", description="Played at night, blue and rock.", sku="S-DESC")
    make_product("Blue Rock", artist="Rock Band", tracks=["Blue"], sku="S-BLUE-ROCK")
    make_product("Knightly", artist="Y", tracks=["Nights"], sku="S-NOT-A-WORD")
    # the first track holding the word is the third, after one holding it inside a word and
    # one spanning two lines (a track title is ranked on its own, whatever it holds)
    make_product("Lines", artist="Z", tracks=["Nightfall", "Late\nnight", "Night"], sku="S-TRACK-LINES")
    for n in range(25):
        make_product(f"Night {n:02d}", artist="Many", sku=f"S-MANY-{n:02d}")
    return reader


@pytest.mark.parametrize("text", ["night", "NIGHT", "blue rock", "blue", "rock night", "owls", "nothing"])
def test_a_search_by_relevance_shows_what_the_aggregation_ranked(searchable, text):
    expected_count, expected = aggregated(text)
    results = Product.search.search(text)
    assert len(results) == expected_count
    assert [(p.sku, p.matched) for p in results[0:500]] == expected


def test_pages_past_the_kept_order_are_ranked_by_the_aggregation(searchable, monkeypatch):
    monkeypatch.setattr(search_module, "RANKED_KEPT", 12)
    _count, expected = aggregated("night")
    for page in (1, 2, 3):
        response = searchable.get(f"/search/?q=night&page={page}")
        assert [p.sku for p in response.context["page"].object_list] == \
            [sku for sku, _matched in expected[(page - 1) * PER_PAGE:page * PER_PAGE]]


@pytest.mark.parametrize("text", ["night", "blue rock"])
def test_a_search_counts_its_facets_as_the_aggregation(searchable, text):
    fields = facet_fields()
    stages = search_stages(text)
    # ``$eq`` spelt out: the same filter, counted by the facets' own aggregation
    aggregation = Product.facets.facet_counts([{"keywords": {"$eq": s["keywords"]}} for s in stages], fields, {},
                                              ("products",))
    assert Product.facets.facet_counts(stages, fields, {}, words_scope(search_words(text))) == aggregation


def test_a_cold_search_reads_its_matches_once(searchable):
    matches = Product.objects.collection.count_documents({"keywords": "night"})
    response, ops = cold_get(searchable, "/search/?q=night")
    assert response.context["page"].paginator.count == matches
    # its matches once (ranked and faceted together), then the page's cards by SKU; before,
    # the ranking aggregation and the facets' each read every match
    assert documents_examined(ops, "products") == matches + PER_PAGE


def test_a_search_reads_every_match_in_one_reply(reader):
    # 150 matches, more than a server's first batch (101 documents): no getMore after the read
    Product.objects.collection.insert_many(
        [{"sku": f"R-{n:03d}", "skus": [f"R-{n:03d}"], "title": f"Reply {n:03d}", "keywords": ["reply"], "type": "Audio Album",
          "details": {"artist": "Someone", "tracks": [{"title": "Reply"}]}, "pricing": {"retail": 500}}
         for n in range(150)])
    facet_fields()  # outside a request computed each time: read first, to count only the search's
    with count_operations() as ops:
        ranked = Product.search.search_ranked(["reply"])
    # all in one price band: its part keeps its best PART_KEPT (search_summary.py)
    assert ranked["total"] == 150 and len(ranked["order"]) == min(150, search_summary.PART_KEPT)
    assert ops.operations.count(("products", "find")) == 1
    assert ("$cmd", "getMore") not in ops.operations, ops.operations


def test_a_search_ranks_a_product_with_one_search_per_field(searchable, monkeypatch):
    searches = []

    class Counting:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, text):
            searches.append(text)
            return self.pattern.search(text)

    compiled = ranking._compiled
    monkeypatch.setattr(ranking, "_compiled", lambda words: Counting(compiled(words)))
    document = Product.objects.collection.find_one({"sku": "S-TRACK-LINES"})
    assert ranking.rank_document(document, ["night"]) == {
        "rank": ranking.RANK_TRACK, "matched_tracks": ["Late\nnight"], "matched_people": []}
    # the title, the artist, and the tracks' titles together (not one search per track)
    assert len(searches) == 3, searches


def test_a_search_shows_an_edit_on_the_next_request(searchable):
    searchable.get("/search/?q=night")
    product = Product.objects.get(sku="S-DESC")
    product.title = "A Night Owl"  # from a match in the description to one in the title, first
    product.save()
    response = searchable.get("/search/?q=night")
    _count, expected = aggregated("night")
    assert [p.sku for p in response.context["page"].object_list] == [sku for sku, _m in expected[:PER_PAGE]]
    assert "S-DESC" in [p.sku for p in response.context["page"].object_list]


# -- the home page's newest --------------------------------------------------------------


@pytest.fixture
def late_catalog(reader, monkeypatch):
    """Now is 1 March 2026; 40 albums issued in 2022, a month apart from June 2019, and older
    ones: the windows from 90 days before now first hold 8 products 4 years back."""
    monkeypatch.setattr("core.clock.now", lambda: datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC))
    for n in range(40):
        make_product(f"Late {n}", year=None, sku=f"L-{n:02d}")
        Product.objects.collection.update_one(
            {"sku": f"L-{n:02d}"},
            {"$set": {"details.issue_date": datetime.datetime(2019 + (5 + n) // 12, 1 + (5 + n) % 12, 15)}})
    for n in range(10):
        make_product(f"Old {n}", year=1980 + n, sku=f"O-{n}")
    CatalogVersion.objects.bump()
    return reader


def plain_newest(limit=8):
    cursor = Product.objects.collection.find({}, {"sku": 1}).sort([("details.issue_date", -1), ("_id", 1)])
    return [d["sku"] for d in cursor.limit(limit)]


def test_the_home_page_reads_its_newest_from_its_kept_window(late_catalog):
    first, first_ops = cold_get(late_catalog, "/")
    assert [p.sku for p in first.context["newest"]] == plain_newest()
    second, ops = cold_get(late_catalog, "/")
    assert [p.sku for p in second.context["newest"]] == plain_newest()
    # the window from the eighth newest's date: 8 products, then their cards by SKU; without
    # the kept window, as on the first visit, the windows from 90 days before now (none,
    # none, the 6 issued since March 2022, then all 40), then the cards
    assert documents_examined(ops, "products") == 8 + 8
    assert documents_examined(first_ops, "products") > 8 + 8


def test_the_home_page_newest_equals_the_plain_sort_after_edits(late_catalog):
    def check():
        response, _ops = cold_get(late_catalog, "/")
        assert [p.sku for p in response.context["newest"]] == plain_newest()

    check()
    Product.objects.get(sku="L-39").delete()  # one of the eight: the window holds 7
    check()
    product = Product.objects.get(sku="O-0")  # an old one issued later than all
    product.details = {**product.details, "issue_date": datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)}
    product.save()
    check()
    make_product("Older", year=2000, sku="OLDER")  # before the window: not among them
    check()
