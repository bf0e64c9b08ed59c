"""Search: ``ProductManager.search``, the ``/search/`` page, the header search box,
prefix suggestions over ``title_lower``, and hostile queries."""

import json

import pytest
from django.core.management import call_command
from pymongo.errors import OperationFailure

from catalog.managers import ProductQuery, SearchUnavailable, fill_title_lower, search_words
from catalog.models import Product
from shop.mongo import get_collection, is_embedded
from shop.mongo.counter import count_operations

from .product_factory import make_product

HOSTILE = [".*", "(", "$where", '{"$ne": 1}', "^", "[a-z]", "\\", "a|b", "' OR 1=1 --",
           "this.title == 'x'", "$regex", "*", "?", ")(", "\x00"]


@pytest.fixture(autouse=True)
def text_index():
    """On a real server, search needs the text index that ``ensure_indexes`` creates."""
    if not is_embedded():
        call_command("ensure_indexes", verbosity=0)


@pytest.fixture
def albums():
    return {
        "zeppelin": make_product("Led Zeppelin IV", artist="Led Zeppelin",
                                 tracks=["Stairway to Heaven", "Black Dog"]),
        "kind": make_product("Kind of Blue", artist="Miles Davis", tracks=["So What"],
                             description="Modal jazz from 1959."),
        "black": make_product("Back in Black", artist="AC/DC", tracks=["Hells Bells"]),
        "matrix": make_product("The Matrix", type=Product.FILM, actor=["Keanu Reeves"],
                               director=["Lana Wachowski"]),
    }


def found(text):
    return sorted(p.title for p in Product.objects.search(text)[0:100])


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


def test_search_any_word(albums):
    assert found("keanu davis") == ["Kind of Blue", "The Matrix"]


def test_search_without_words_finds_nothing_and_costs_nothing(albums):
    with count_operations() as ops:
        query = Product.objects.search("   ")
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
    assert [p.sku for p in Product.objects.search("$regex")[0:10]] == [song.sku]
    assert [p.sku for p in Product.objects.search("{'$regex': '.*'}")[0:10]] == [song.sku]
    assert found('{"$ne": 1}') == []


# -- the page ------------------------------------------------------------------------


def test_search_page(client, albums):
    with count_operations() as ops:
        response = client.get("/search/", {"q": "zeppelin"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Led Zeppelin IV" in body and "Kind of Blue" not in body
    # count, page, header categories; the embedded engine gets count and page in one scan.
    assert ops.total == 2  # one aggregation (count and page), header categories
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
    assert ops.total == 2  # one aggregation (count and page), header categories


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


@pytest.mark.skipif("is_embedded()", reason="$text needs a real MongoDB server")
def test_search_ranks_by_relevance_on_a_real_server(albums):
    call_command("ensure_indexes", verbosity=0)
    make_product("Zeppelin Zeppelin", artist="Zeppelin Tribute", tracks=["Zeppelin"])
    results = [p.title for p in Product.objects.search("zeppelin")[0:10]]
    assert results[0] == "Zeppelin Zeppelin"


def test_search_uses_the_fallback_only_on_the_embedded_engine(albums, monkeypatch):
    # The decision is shop.mongo.is_embedded(): pretend to be on a server.
    monkeypatch.setattr("catalog.managers.is_embedded", lambda alias="default": False)
    query = Product.objects.search("zeppelin")
    assert query.match == {"$text": {"$search": "zeppelin"}}
    monkeypatch.setattr("catalog.managers.is_embedded", lambda alias="default": True)
    assert "$or" in Product.objects.search("zeppelin").match


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
    assert [p.title for p in Product.objects.suggest("BACK")] == ["Back in Black", "Back to Black"]
    assert [p.title for p in Product.objects.suggest("back t")] == ["Back to Black"]
    assert Product.objects.suggest("ack") == []  # a prefix, not a substring
    assert Product.objects.suggest("   ") == []


@pytest.mark.parametrize("prefix", [".*", "(", "[", "\\", "$where", "^", "a|b", '{"$ne": 1}'])
def test_suggest_is_escaped(prefix):
    make_product("Anything")
    literal = make_product(f"{prefix} literally")
    assert [p.sku for p in Product.objects.suggest(prefix)] == [literal.sku]


def test_suggest_limit():
    for i in range(12):
        make_product(f"Rock {i:02d}")
    assert len(Product.objects.suggest("rock")) == 8
    assert len(Product.objects.suggest("rock", limit=3)) == 3


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


@pytest.mark.skipif("is_embedded()", reason="explain() needs a real MongoDB server")
def test_suggest_uses_the_title_lower_index_on_a_real_server():
    make_product("Led Zeppelin IV")
    plan = str(get_collection("products").find({"title_lower": {"$regex": "^led"}})
               .sort([("title_lower", 1), ("_id", 1)]).explain()["queryPlanner"]["winningPlan"])
    assert "title_lower" in plan and "COLLSCAN" not in plan


# -- a server without the text index ------------------------------------------------------


class _NoTextIndex:
    """A collection whose reads fail as a server's do for $text without a text index."""

    def with_options(self, **kwargs):
        return self

    def count_documents(self, *args, **kwargs):
        raise OperationFailure("text index required for $text query", code=27)

    def find(self, *args, **kwargs):
        raise OperationFailure("text index required for $text query", code=27)

    def aggregate(self, *args, **kwargs):  # a page of results is an aggregation
        raise OperationFailure("text index required for $text query", code=27)


def test_missing_text_index_is_search_unavailable(monkeypatch):
    monkeypatch.setattr(type(Product.objects), "collection", property(lambda self: _NoTextIndex()))
    query = ProductQuery(Product.objects, {"$text": {"$search": "x"}}, [])
    with pytest.raises(SearchUnavailable, match="ensure_indexes"):
        query.count()
    with pytest.raises(SearchUnavailable):
        query[0:24]


def test_other_failures_are_not_hidden(monkeypatch):
    class Failing(_NoTextIndex):
        def count_documents(self, *args, **kwargs):
            raise OperationFailure("something else", code=2)

    monkeypatch.setattr(type(Product.objects), "collection", property(lambda self: Failing()))
    with pytest.raises(OperationFailure):
        ProductQuery(Product.objects, {"title": "x"}, []).count()


def test_search_page_without_the_text_index_answers_503(client, monkeypatch):
    def unavailable(self):
        raise SearchUnavailable("Search is not available: the text index is missing.")

    monkeypatch.setattr(ProductQuery, "count", unavailable)
    monkeypatch.setattr(type(Product.objects), "search",
                        lambda self, text, **kwargs: ProductQuery(self, {"$text": {}}, []))
    response = client.get("/search/", {"q": "zeppelin"})
    assert response.status_code == 503
    assert "Search is not available right now" in response.content.decode()
