"""Every public page's URL parameters and every public form fed hostile values: regex
metacharacters, operators, huge and negative numbers, over-long strings, wrong types, unknown
parameters. Each answers a 4xx or the normal page, never a 500, in bounded time, and changes
nothing."""

import time

import pytest
from django.test import Client

from tests.security.conftest import HOSTILE_VALUES, REGEX

# Generous: the machine is shared; a regex that backtracks takes minutes to hours.
BOUND = 20.0
PAGES = ["/", "/c/rock/", "/p/CHK-0001/", "/search/", "/search/suggest/", "/deals/", "/genre/Rock/",
         "/artist/AC-DC/", "/cart/", "/account/login/", "/account/signup/", "/account/password/reset/"]
PARAMETERS = ["q", "page", "sort", "min_price", "max_price", "min", "type", "next", "unknown",
              "email__regex", "$where", "genre", "artist", "price", "in_stock"]


def answered(method, url, data=None, **extra):
    """The answer to one request, with the time it took asserted under ``BOUND``."""
    started = time.monotonic()
    answer = getattr(Client(raise_request_exception=False), method)(url, data or {}, **extra)
    took = time.monotonic() - started
    assert took < BOUND, (url, data, took)
    assert answer.status_code < 500, (url, data, answer.status_code)
    return answer


@pytest.mark.parametrize("page", PAGES)
def test_page_parameters(chinook, unchanged, page):
    for value in HOSTILE_VALUES:
        # Every parameter at once, then the ones pages read first alone (a 400 for one bad
        # parameter could hide what another does).
        for query in ({name: value for name in PARAMETERS}, {"q": value}, {"page": value}, {"sort": value}):
            answer = answered("get", page, query)
            assert answer.status_code in (200, 302, 400, 404), (page, query, answer.status_code)


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_path_segments(chinook, unchanged, value):
    for prefix in ("/c/", "/p/", "/genre/", "/artist/", "/actor/", "/api/v1/products/", "/api/v1/categories/"):
        answer = answered("get", prefix + value.replace("/", "%2F").replace("\x00", "%00") + "/")
        assert answer.status_code in (200, 301, 302, 400, 404), (prefix, value, answer.status_code)


FORMS = {
    "/account/signup/": ["email", "password1", "password2"],
    "/account/login/": ["username", "password"],
    "/account/password/reset/": ["email"],
    "/cart/add/": ["sku", "qty"],
    "/cart/update/": ["sku", "qty"],
    "/cart/remove/": ["sku"],
    "/checkout/": ["name", "email", "card_number", "expiry", "cvc", "ship-name", "ship-country",
                   "ship-postcode"],
}


@pytest.mark.parametrize("url", sorted(FORMS))
def test_form_fields(chinook, url):
    from tests.security.conftest import snapshot

    before = snapshot()
    for field in FORMS[url]:
        for value in HOSTILE_VALUES:
            answered("post", url, {**{f: "x" for f in FORMS[url]}, field: value, "unknown": value})
        # A list where one value is expected, and a JSON body with an operator.
        answered("post", url, {field: ["a", "b"]})
        answered("post", url, '{"%s": {"$gt": ""}}' % field, content_type="application/json")
    after = snapshot()
    if url == "/account/signup/":  # a sign-up may make an account; nothing else changes
        before.pop("auth_user"), after.pop("auth_user")
    assert after == before


def test_api_fed_operators_and_bad_types(chinook, unchanged):
    for url in ("/api/v1/products/CHK-0001", "/api/v1/categories/rock", "/api/v1/categories/rock/products"):
        for value in HOSTILE_VALUES:
            answer = answered("get", url, {"page": value, "sort": value, "unknown": value})
            assert answer.status_code in (200, 400, 404)
            assert answer["Content-Type"] == "application/json"
        assert answered("post", url, '{"$where": "1"}', content_type="application/json").status_code == 405
        assert answered("get", url + "/" + REGEX.replace("*", "%2A")).status_code in (400, 404)
