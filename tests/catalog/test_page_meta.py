"""Every storefront page has a meta description (a category's and a product's their
own) and the favicon; ``/favicon.ico`` answers (Lighthouse's SEO and best practices)."""

import re
from html import unescape

import pytest

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')


def description(response):
    found = DESCRIPTION.findall(response.content.decode())
    assert len(found) == 1, found
    return unescape(found[0])


@pytest.mark.parametrize("url", [
    "/", "/c/rock/", "/p/CHK-0001/", "/search/?q=rock", "/deals/", "/artist/AC%2FDC/", "/genre/Rock/",
    "/cart/", "/account/login/", "/account/signup/", "/no-such-page/", "/c/rock/?min_price=cheap",
])
def test_every_storefront_page_has_a_description_and_the_icon(client, chinook, url):
    response = client.get(url)
    assert response.status_code in (200, 400, 404)
    assert 50 <= len(description(response)) <= 200
    assert 'rel="icon" href="/static/shop/favicon.ico"' in response.content.decode()


def test_a_category_and_a_product_have_their_own_description(client, chinook):
    rock = description(client.get("/c/rock/"))
    assert rock.startswith("Rock at Chinook Records: 180 albums and TV seasons")
    product = description(client.get("/p/CHK-0001/"))
    assert product.startswith("For Those About To Rock We Salute You by AC/DC, Audio Album, $")
    assert "10 tracks" in product
    assert len({rock, product, description(client.get("/"))}) == 3


def test_favicon_ico_answers(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/shop/favicon.ico"
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    assert b"".join(icon.streaming_content if icon.streaming else [icon.content])[:4] == b"\x00\x00\x01\x00"
