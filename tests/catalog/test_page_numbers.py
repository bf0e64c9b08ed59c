"""Page numbers beyond range or beyond 64 bits never reach a query.

A page becomes a ``$skip`` of ``(page - 1) * 24``; MongoDB's integers are
64-bit, so ``?page=999999999999999999999999999999`` used to fail in pymongo
(``OverflowError``) with a 500. The storefront clamps the number (the last
page is shown, as for any page past the end); the API answers 400 before
reading anything.
"""

import pytest
from django.test import RequestFactory

from catalog.listings.query import page_hint
from catalog.listings.paginators import MAX_PAGE, page_number
from core.mongo.counter import count_operations

HUGE = "999999999999999999999999999999"  # 30 digits: far beyond 2**63
JUST_ABOVE_64_BITS = str(2**63 // 24 + 2)  # its $skip alone would overflow


@pytest.mark.parametrize("value, expected", [
    ("1", 1), ("7", 7), ("0", 1), ("-3", 1), ("abc", 1), ("1.5", 1), ("\x00", 1), ("", 1),
    (str(MAX_PAGE), MAX_PAGE), (str(MAX_PAGE + 1), MAX_PAGE), (HUGE, MAX_PAGE),
    ("9" * 10_000, MAX_PAGE),  # more digits than Python's int() accepts from a string
    ("-" + HUGE, 1),
])
def test_page_number_is_bounded_without_a_query(value, expected):
    request = RequestFactory().get("/c/rock/", {"page": value})
    with count_operations() as ops:
        assert page_number(request) == expected
    assert ops.total == 0


def test_the_skip_of_any_page_fits_in_64_bits():
    start, stop = page_hint(int(HUGE), 24)
    assert stop < 2**63 and start == (MAX_PAGE - 1) * 24


@pytest.mark.parametrize("url, heading", [
    ("/c/rock/", "Rock"),
    ("/search/?q=rock", "rock"),
    ("/genre/Rock/", "Rock"),
    ("/artist/AC%2FDC/", "AC/DC"),
    ("/deals/?min=1", "Deals"),
])
@pytest.mark.parametrize("page", [HUGE, JUST_ABOVE_64_BITS, "99999"])
def test_a_page_past_the_end_or_beyond_64_bits_shows_the_last_page(client, chinook, url, heading, page):
    joiner = "&" if "?" in url else "?"
    response = client.get(f"{url}{joiner}page={page}")
    assert response.status_code == 200, response.content[:300]
    shown = response.context["page"]
    assert shown.number == shown.paginator.num_pages and shown.object_list
    assert heading in response.content.decode()


@pytest.mark.parametrize("page", [HUGE, JUST_ABOVE_64_BITS, str(MAX_PAGE + 1)])
def test_the_api_refuses_a_page_beyond_the_bound_before_any_read(client, chinook, page):
    with count_operations() as ops:
        response = client.get(f"/api/v1/categories/rock/products?page={page}")
    assert response.status_code == 400
    assert response.json()["detail"] == f"page must be at most {MAX_PAGE}."
    assert ops.total == 0, ops


def test_the_api_page_past_the_end_within_the_bound_is_still_404(client, chinook):
    response = client.get(f"/api/v1/categories/rock/products?page={MAX_PAGE}")
    assert response.status_code == 404 and f"page {MAX_PAGE}" in response.json()["detail"]
