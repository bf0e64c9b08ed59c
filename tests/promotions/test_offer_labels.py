"""The automatic offers' labels on the storefront (``promotions.labels``): on a listing's cards
(a kept fragment keyed by the offers in effect), the product page and the cart; they change
when an offer is saved, deleted, starts or ends, and a warm page reads no offer."""

import datetime
from types import SimpleNamespace
from unittest import mock

import pytest
from bson import ObjectId
from django.conf import settings
from django.core.cache import caches
from django.test import Client, override_settings

from core import clock
from core.mongo.counter import count_operations
from inventory.models import Inventory
from promotions import labels
from promotions.models import Offer
from tests.support.products import make_product

LABEL = '<span class="offer">3 for 2 on metal</span>'


@pytest.fixture
def shop(make_tree):
    """Music > Rock > Metal, Video; an album in Metal and a film in Video, with stock."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}}, "Video": {}})
    make_product("Alpha Album", categories=[tree["Metal"].pk], sku="SKU-A")
    make_product("Video One", type="Film", categories=[tree["Video"].pk], sku="SKU-V")
    Inventory.objects.ensure_stock(["SKU-A", "SKU-V"], 10)
    with override_settings(CACHES={**settings.CACHES, "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "labels"}}):
        caches["default"].clear()
        yield tree


def metal_offer(tree, **fields):
    made = Offer(name="3 for 2 on metal", benefit=Offer.MULTIBUY, quantity=3, pay=2,
                 include_categories=[str(tree["Metal"].pk)], **fields)
    made.save()
    return made


def cards(client, url="/c/music/"):
    return client.get(url).content.decode()


def test_a_card_shows_the_offers_covering_its_product_only(shop):
    metal_offer(shop)
    page = cards(Client(), "/c/music/")
    assert page.count(LABEL) == 1
    alpha = page[page.index("Alpha Album"):]
    assert alpha.index(LABEL) < alpha.index("</li>")
    assert LABEL not in cards(Client(), "/c/video/")
    assert LABEL in cards(Client(), "/")  # home's newest cards
    assert LABEL in cards(Client(), "/search/?q=alpha")


def test_saving_and_deleting_an_offer_changes_the_warm_cards_at_once(shop):
    reader = Client()
    for _ in range(2):
        assert LABEL not in cards(reader)
    made = metal_offer(shop)
    assert LABEL in cards(reader)
    made.name = "Metal: 3 for 2"
    made.save()
    page = cards(reader)
    assert LABEL not in page and '<span class="offer">Metal: 3 for 2</span>' in page
    made.delete()
    assert 'class="offer"' not in cards(reader)


def test_an_offer_starting_and_ending_changes_the_cards_without_a_write(shop):
    now = clock.now()
    metal_offer(shop, starts_at=now + datetime.timedelta(hours=1), ends_at=now + datetime.timedelta(hours=2))
    reader = Client()
    assert LABEL not in cards(reader)
    with mock.patch("core.clock.now", return_value=now + datetime.timedelta(minutes=61)):
        assert LABEL in cards(reader)
        assert LABEL in Client().get("/p/SKU-A/").content.decode().replace('<li class="offer">', '<span class="offer">').replace("</li>", "</span>")
    with mock.patch("core.clock.now", return_value=now + datetime.timedelta(hours=3)):
        assert LABEL not in cards(reader)


def test_a_warm_page_reads_no_offer_and_costs_what_it_did_without_offers(shop):
    reader = Client()
    for _ in range(2):
        cards(reader)
    with count_operations() as without:
        cards(reader)
    for number in range(10):
        Offer(name=f"Offer {number}", benefit=Offer.PERCENT, value=5, include_skus=[f"X-{number}"]).save()
    metal_offer(shop)
    for _ in range(2):
        cards(reader)
    with count_operations() as ops:
        assert LABEL in cards(reader)
    assert ops.total == without.total, (ops, without)


def test_the_product_page_names_its_offers(shop):
    metal_offer(shop)
    assert '<li class="offer">3 for 2 on metal</li>' in Client().get("/p/SKU-A/").content.decode()
    assert 'class="offer"' not in Client().get("/p/SKU-V/").content.decode()


def test_labels_follow_the_range_include_exclude_and_variants():
    metal, other = ObjectId(), ObjectId()
    offers = [{"name": "Metal", "include_categories": [str(metal)], "exclude_skus": ["EX"]},
              {"name": "Films", "include_types": ["Film"]},
              {"name": "One vinyl", "include_skus": ["ALB-VINYL"]},
              {"name": "All"}]
    album = {"_id": ObjectId(), "sku": "ALB", "type": "Audio Album", "listed_in": [metal],
             "variants": [{"sku": "ALB-CD"}, {"sku": "ALB-VINYL"}]}
    assert labels.labels_for(album, offers) == ["Metal", "One vinyl", "All"]
    excluded = {"_id": ObjectId(), "sku": "EX", "type": "Audio Album", "listed_in": [metal]}
    assert labels.labels_for(excluded, offers) == ["All"]
    film = SimpleNamespace(pk=ObjectId(), sku="F", type="Film", listed_in=[other], variants=[])
    assert labels.labels_for(film, offers) == ["Films", "All"]


def test_without_offers_no_page_reads_them_even_cold(shop):
    """The offers' version token (read with every page's versions) says none is active."""
    for url in ("/c/music/", "/p/SKU-A/", "/", "/search/?q=alpha"):
        with count_operations() as ops:
            assert Client().get(url).status_code == 200
        assert not [op for op in ops.operations if op[0] == "offers"], (url, ops)
    made = metal_offer(shop)
    made.delete()  # published again: none active
    with count_operations() as ops:
        Client().get("/c/music/")
    assert not [op for op in ops.operations if op[0] == "offers"]


def test_an_offer_saved_in_another_process_shows_at_once(shop):
    """The token is read on every request: a save elsewhere (here: the offer written behind the
    process's back, then published as the other process would) changes the cards at once."""
    made = metal_offer(shop)
    reader = Client()
    assert LABEL in cards(reader)
    Offer.objects.collection.update_one({"_id": made.pk}, {"$set": {"name": "Renamed elsewhere"}})
    assert LABEL in cards(reader)  # nothing published yet: the kept copy stands
    labels.publish()
    assert '<span class="offer">Renamed elsewhere</span>' in cards(reader)


def test_the_cart_names_an_offer_its_lines_are_short_of(client, shop):
    metal_offer(shop)
    client.post("/cart/add/", {"sku": "SKU-A", "qty": 1})
    page = client.get("/cart/").content.decode()
    assert 'aria-label="Offers on items in your cart"' in page and LABEL in page
    client.post("/cart/add/", {"sku": "SKU-A", "qty": 2})
    page = client.get("/cart/").content.decode()
    assert 'aria-label="Offers on items in your cart"' not in page  # applied: it is a discount now
    assert "3 for 2 on metal" in page
