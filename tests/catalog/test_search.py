"""Search: ``SearchManager.search``, the ``/search/`` page, the header search box,
prefix suggestions over ``title_lower``, and hostile queries."""

import json

import pytest

from catalog.products.keywords import document_keywords, prefix_range, search_words
from catalog.store.backfills import fill_keywords, fill_title_lower
from catalog.models import Product
from core.mongo import get_collection
from core.mongo.counter import count_operations

from tests.support.products import make_product

HOSTILE = [".*", "(", "$where", '{"$ne": 1}', "^", "[a-z]", "\\", "a|b", "' OR 1=1 --",
           "this.title == 'x'", "$regex", "*", "?", ")(", "\x00"]


@pytest.fixture
def albums():
    return {
        "zeppelin": make_product("Led Zeppelin IV", artist="Led Zeppelin",
                                 tracks=["Stairway to Heaven", "Black Dog"]),
        "kind": make_product("Kind of Blue", artist="Miles Davis", tracks=["So What"],
                             description="Modal jazz from 1959."),
        "black": make_product("Back in Black", artist="AC/DC", tracks=["Hells Bells"]),
        "matrix": make_product("The Matrix", type="Film", actor=["Keanu Reeves"],
                               director=["Lana Wachowski"]),
    }


def found(text):
    return sorted(p.title for p in Product.search.search(text)[0:100])


# -- what it finds -------------------------------------------------------------------


def test_search_words():
    assert search_words("  Led   ZEPPELIN led ") == ["led", "zeppelin"]
    assert search_words('.* ( $where {"$ne": 1}') == ["where", "ne", "1"]
    assert search_words("") == [] and search_words(None) == []
    assert len(search_words(" ".join(f"w{i}" for i in range(50)))) == 10


def test_search_finds_title_artist_track_description_actor_director(albums):
    assert found("zeppelin") == ["Led Zeppelin IV"]
    assert found("STAIRWAY") == ["Led Zeppelin IV"]  # a track, any case
    assert found("davis") == ["Kind of Blue"]
    assert found("modal") == ["Kind of Blue"]  # description
    assert found("keanu") == ["The Matrix"]
    assert found("wachowski") == ["The Matrix"]


def test_search_matches_words_not_inside_words(albums):
    assert found("black") == ["Back in Black", "Led Zeppelin IV"]  # title, track "Black Dog"
    assert found("lack") == []
    assert found("ells") == []


def test_search_needs_every_word(albums):
    assert found("keanu davis") == []
    assert found("keanu matrix") == ["The Matrix"]


def test_search_without_words_finds_nothing_and_costs_nothing(albums):
    with count_operations() as ops:
        query = Product.search.search("   ")
        assert query.count() == 0 and list(query[0:24]) == []
    assert ops.total == 0


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_queries_are_searched_as_text(albums, text):
    words = search_words(text)
    results = found(text)
    # Never everything (a pattern or an operator would match every product)...
    assert len(results) < len(albums)
    # ...only products that contain one of the query's words.
    for title in results:
        product = Product.objects.get(title=title)
        haystack = " ".join([product.title, product.description, str(product.details.__dict__)])
        assert any(word in haystack.lower() for word in words)


def test_operator_words_match_literally():
    # ("$where" would do too, but "where" is an English stop word for a server's $text.)
    song = make_product("The Regex Song")
    make_product("Irregex Blues")  # inside a word: not a match
    assert [p.sku for p in Product.search.search("$regex")[0:10]] == [song.sku]
    assert [p.sku for p in Product.search.search("{'$regex': '.*'}")[0:10]] == [song.sku]
    assert found('{"$ne": 1}') == []


# -- the page ------------------------------------------------------------------------


def test_search_page(client, albums):
    with count_operations() as ops:
        response = client.get("/search/", {"q": "zeppelin"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Led Zeppelin IV" in body and "Kind of Blue" not in body
    # the catalog version, the count, order and facet counts from one read of the matches
    # (Product.search.search_ranked) after the kept summary's read (none yet: kept after the
    # words' versions read again, unchanged while it counted, then one write;
    # test_search_summary.py), the versions of the products shown and their cards by SKU (kept
    # from this first visit), the page's stock, the header categories (a cold cache), the
    # sold-out SKUs (the "in stock" count)
    assert ops.total == 11, ops.operations  # with the product types (facets)
    assert 'value="zeppelin"' in body  # the header box keeps the query


def test_search_page_costs_the_same_for_many_results(client, settings):
    settings.CATALOG_PAGE_SIZE = 5
    for i in range(23):
        make_product(f"Rock {i}")
    with count_operations() as ops:
        response = client.get("/search/", {"q": "rock", "page": "3"})
    body = response.content.decode()
    assert body.count('class="card"') == 5 and "23 products" in body
    assert "q=rock&amp;page=4" in body
    assert ops.total == 11, ops.operations  # as test_search_page


@pytest.mark.parametrize("text", [t for t in HOSTILE if t != "\x00"])
def test_search_page_with_hostile_queries(client, albums, text):
    response = client.get("/search/", {"q": text})
    assert response.status_code == 200
    assert response.content.decode().count('class="card"') < len(albums)


def test_search_page_empty_query(client, albums):
    response = client.get("/search/")
    assert response.status_code == 200
    assert "Type a word" in response.content.decode()


def test_search_page_rejects_a_huge_query_or_a_null_character(client):
    response = client.get("/search/", {"q": "x" * 201})
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert client.get("/search/", {"q": "a\x00b"}).status_code == 400


def test_every_page_has_the_search_box(client, chinook):
    for url in ("/", "/c/rock/", "/p/CHK-0001/"):
        body = client.get(url).content.decode()
        assert 'role="search"' in body and 'action="/search/"' in body and 'name="q"' in body
        assert 'list="search-suggestions"' in body and '<datalist id="search-suggestions">' in body


def test_search_over_chinook(client, chinook):
    body = client.get("/search/", {"q": "Iron Maiden"}).content.decode()
    assert "Powerslave" in body


def test_search_matches_whole_words(albums):
    assert found("led zeppelin") == ["Led Zeppelin IV"]
    assert found("black") == ["Back in Black", "Led Zeppelin IV"]  # a title, a track
    assert found("black dog") == ["Led Zeppelin IV"]
    assert found("black hells") == ["Back in Black"]
    assert found("zep") == [] and found("eppelin") == []  # words, not parts of words


def test_search_uses_the_keywords_index(albums):
    # The first word's $match is served by the index on every server.
    first = {"keywords": "zeppelin"}
    plan = str(get_collection("products").find(first).explain()["queryPlanner"]["winningPlan"])
    assert "IXSCAN" in plan and "keywords" in plan and "COLLSCAN" not in plan
    assert Product.search.search("zeppelin black").match == [first, {"keywords": "black"}]


def test_keywords_are_kept_on_save_and_by_sync(albums, chinook):
    product = albums["kind"]
    assert product.keywords == sorted({"kind", "of", "blue", "miles", "davis", "so", "what",
                                       "modal", "jazz", "from", "1959"})
    product.title = "Kind of Green"
    product.save(update_fields=["title"])
    stored = get_collection("products").find_one({"_id": product.pk})
    assert "green" in stored["keywords"] and "blue" not in stored["keywords"]
    chinook_album = get_collection("products").find_one({"sku": "CHK-0001"})
    assert chinook_album["keywords"] == document_keywords(chinook_album)
    assert chinook_album["keywords"]


def test_fill_keywords_sets_missing_and_stale_values(albums):
    products = get_collection("products")
    products.update_one({"_id": albums["kind"].pk}, {"$unset": {"keywords": 1}})
    products.update_one({"_id": albums["black"].pk}, {"$set": {"keywords": ["stale"]}})
    assert fill_keywords() == 2
    assert found("stale") == [] and found("hells") == ["Back in Black"]
    assert fill_keywords() == 0


# -- title_lower and suggestions ---------------------------------------------------------


def test_title_lower_is_kept_on_save():
    product = make_product("AC/DC Live")
    assert product.title_lower == "ac/dc live"
    product.title = "Back IN Black"
    product.save(update_fields=["title"])
    assert Product.objects.get(pk=product.pk).title_lower == "back in black"


def test_title_lower_is_kept_by_sync(chinook):
    product = Product.objects.get_by_sku("CHK-0001")
    assert product.title_lower == product.title.casefold()


def test_fill_title_lower_sets_missing_values():
    product = make_product("Some Title")
    get_collection("products").update_one({"_id": product.pk}, {"$unset": {"title_lower": 1}})
    assert fill_title_lower() == 1
    assert Product.objects.get(pk=product.pk).title_lower == "some title"
    assert fill_title_lower() == 0


def test_suggest_prefix_any_case(albums):
    make_product("Back to Black")
    assert [p.title for p in Product.search.suggest("BACK")] == ["Back in Black", "Back to Black"]
    assert [p.title for p in Product.search.suggest("back t")] == ["Back to Black"]
    assert Product.search.suggest("ack") == []  # a prefix, not a substring
    assert Product.search.suggest("   ") == []


@pytest.mark.parametrize("prefix", [".*", "(", "[", "\\", "$where", "^", "a|b", '{"$ne": 1}'])
def test_suggest_is_escaped(prefix):
    make_product("Anything")
    literal = make_product(f"{prefix} literally")
    assert [p.sku for p in Product.search.suggest(prefix)] == [literal.sku]


def test_suggest_limit():
    for i in range(12):
        make_product(f"Rock {i:02d}")
    assert len(Product.search.suggest("rock")) == 8
    assert len(Product.search.suggest("rock", limit=3)) == 3


def test_suggest_endpoint(client, albums):
    with count_operations() as ops:
        response = client.get("/search/suggest/", {"q": "led"})
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    data = json.loads(response.content)
    assert data == {"query": "led", "suggestions": [{
        "title": "Led Zeppelin IV", "sku": albums["zeppelin"].sku,
        "url": albums["zeppelin"].get_absolute_url(),
    }]}
    assert ops.total == 1


def test_suggest_endpoint_rejects_a_huge_prefix(client):
    response = client.get("/search/suggest/", {"q": "x" * 101})
    assert response.status_code == 400 and "error" in json.loads(response.content)


def test_suggest_uses_the_title_lower_index():
    make_product("Led Zeppelin IV")
    # The form suggest() sends: a range, as SecantusDB scans for any $regex.
    plan = str(get_collection("products").find({"title_lower": prefix_range("led")})
               .sort([("title_lower", 1), ("_id", 1)]).explain()["queryPlanner"]["winningPlan"])
    assert "title_lower" in plan and "COLLSCAN" not in plan
