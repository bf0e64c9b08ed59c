"""load_catalog: the Chinook demo catalog as categories and products, idempotent.

A test that only needs the catalog loaded before it asks for ``chinook`` (the documents
``load_catalog`` wrote once for this test process: tests/support/database.py), not a load
of its own (about 7 s on the local server); the first two and the last tests load it
themselves."""

import datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.transfer import chinook
from catalog.models import Category, Product
from core import mongo


def load(*args):
    out = StringIO()
    call_command("load_catalog", *args, stdout=out)
    return out.getvalue()


def counts():
    return (
        mongo.get_collection("categories").count_documents({}),
        mongo.get_collection("products").count_documents({}),
    )


def test_loads_the_chinook_catalog():
    output = load()
    assert counts() == (len(chinook.GENRE_TREE), 347)
    assert "347 created" in output
    assert Product.objects.filter(type="TV Season").count() == 12
    assert Product.objects.filter(type="Audio Album").count() == 335


@pytest.mark.usefixtures("chinook")
def test_a_second_run_changes_nothing():
    before = list(mongo.get_collection("products").find({}).sort("sku"))
    output = load()
    assert counts() == (len(chinook.GENRE_TREE), 347)
    assert "0 created, 0 updated, 347 unchanged" in output
    assert "0 created" in output.splitlines()[0]
    assert list(mongo.get_collection("products").find({}).sort("sku")) == before


@pytest.mark.usefixtures("chinook")
def test_a_changed_product_is_restored():
    mongo.get_collection("products").update_one({"sku": "CHK-0001"}, {"$set": {"title": "Oops"}})
    assert "0 created, 1 updated, 346 unchanged" in load()
    assert Product.objects.get_by_sku("CHK-0001").title == "For Those About To Rock We Salute You"


@pytest.mark.usefixtures("chinook")
def test_reset_starts_over():
    Category.writes.create_category("Staff pick")
    output = load("--reset")
    assert "deleted 31 categories and 347 products" in output
    assert counts() == (len(chinook.GENRE_TREE), 347)


@pytest.mark.usefixtures("chinook")
def test_genres_become_a_tree():
    assert [c["name"] for c in Category.objects.breadcrumbs("heavy-metal")] == [
        "Music", "Rock", "Metal", "Heavy Metal"
    ]
    assert [c["name"] for c in Category.objects.breadcrumbs("drama")] == ["Video", "TV Shows", "Drama"]
    assert [c.name for c in Category.objects.top_level()] == ["Music", "Video"]


@pytest.mark.usefixtures("chinook")
def test_an_album_becomes_a_product():
    album = Product.objects.get_by_sku("CHK-0001")
    assert album.title == "For Those About To Rock We Salute You"
    assert album.type == "Audio Album"
    assert album.details["artist"] == "AC/DC"
    assert album.details["genre"] == ["Rock"]
    assert len(album.details["tracks"]) == 10
    first = album.details["tracks"][0]
    assert (first["number"], first["title"], first["duration"], first["price"]) == (
        1, "For Those About To Rock (We Salute You)", 343719, 99)
    assert first["composer"] == "Angus Young, Malcolm Young, Brian Johnson"
    assert (album.pricing.list, album.pricing.retail) == (990, 799)
    assert (album.pricing.savings, album.pricing.pct_savings) == (191, 19)
    assert album.categories == [Category.objects.get_by_slug("rock").pk]
    assert album.details["issue_date"] == datetime.datetime(2021, 1, 2, tzinfo=datetime.UTC)


@pytest.mark.usefixtures("chinook")
def test_a_tv_season_is_its_own_type():
    season = Product.objects.get_by_sku("CHK-0229")
    assert season.title == "Lost, Season 3"
    assert season.type == "TV Season"
    assert season.details["tracks"] and season.details["tracks"][0]["price"] == 199


@pytest.mark.parametrize("list_cents, retail", [(99, 99), (198, 198), (990, 799), (1485, 1199)])
def test_retail_price_is_below_list_or_equal(list_cents, retail):
    assert chinook.retail_price(list_cents) == retail


def test_an_unreadable_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "not-chinook.sqlite"
    bad.write_text("not a database")
    with pytest.raises(CommandError, match="Cannot read the Chinook database"):
        load("--file", str(bad))
    assert counts() == (0, 0)


def test_what_it_changes_goes_to_the_log_too(caplog):
    with caplog.at_level("INFO", logger="shop.commands"):
        load()
    lines = [r.getMessage() for r in caplog.records if r.name == "shop.commands"]
    assert "load_catalog: Products: 347 created, 0 updated, 0 unchanged." in lines
    assert any(line.startswith("load_catalog: Categories: 30 created") for line in lines)
