"""import_products: CSV and JSON Lines into the catalog, checked first, all or nothing, idempotent."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalog.models import Attribute, ListingCount, Product, ProductType
from core import mongo
from inventory.models import Inventory

from .importfiles import album_row, snapshot, write_csv, write_jsonl


@pytest.fixture
def tree(make_tree):
    return make_tree({"Music": {"Rock": {}, "Jazz": {}}})


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("import_products", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_imports_products_with_their_stock_and_derived_fields(tree, tmp_path):
    path = write_csv(tmp_path / "p.csv", [album_row(1), album_row(2, categories="Music > Rock|Music > Jazz")])
    out, _ = run(path)
    assert "2 created, 0 changed, 0 unchanged, 0 refused" in out
    product = Product.objects.get_by_sku("IMP-00002")
    assert product.pricing.retail == 999 and product.pricing.list == 1200 and product.pricing.pct_savings == 16
    assert product.details["artist"] == "Artist 2" and product.details["genre"] == ["Rock", "Pop"]
    assert set(product.categories) == {tree["Rock"].pk, tree["Jazz"].pk}
    document = mongo.get_collection("products").find_one({"sku": "IMP-00002"})
    assert document["title_lower"] == "album 2" and "artist" in document["keywords"]
    assert set(document["listed_in"]) == {tree["Music"].pk, tree["Rock"].pk, tree["Jazz"].pk}
    assert Inventory.objects.available("IMP-00001") == 5
    kept = mongo.get_collection("listing_counts").find_one({"_id": tree["Music"].pk})
    assert kept["listed"] == 2 and kept["writing"] == 0  # recounted once at the end, trusted
    assert ListingCount.objects.listed(tree["Music"].pk) == 2


def test_json_lines_too(tree, tmp_path):
    row = album_row(1, stock=3, price=4.5)
    row["details.genre"] = ["Jazz"]
    out, _ = run(write_jsonl(tmp_path / "p.jsonl", [row]))
    assert "1 created" in out
    assert Product.objects.get_by_sku("IMP-00001").pricing.retail == 450
    assert Product.objects.get_by_sku("IMP-00001").details["genre"] == ["Jazz"]


def test_a_second_import_changes_nothing(tree, tmp_path):
    path = write_csv(tmp_path / "p.csv", [album_row(n) for n in range(20)])
    run(path)
    before = snapshot()
    out, _ = run(path)
    assert "0 created, 0 changed, 20 unchanged" in out and "stock: 0 created, 0 changed" in out
    assert snapshot() == before


def test_an_update_changes_only_what_the_row_carries(tree, tmp_path):
    run(write_csv(tmp_path / "a.csv", [album_row(1)]))
    mongo.get_collection("products").update_one({"sku": "IMP-00001"}, {"$set": {"shipping": {"weight": 110}}})
    out, _ = run(write_csv(tmp_path / "b.csv", [album_row(1, title="Renamed", price="8.00")]))
    assert "0 created, 1 changed" in out
    document = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    assert document["title"] == "Renamed" and document["title_lower"] == "renamed"
    assert document["pricing"]["retail"] == 800 and document["shipping"] == {"weight": 110}


def test_dry_run_reports_and_writes_nothing(tree, tmp_path):
    run(write_csv(tmp_path / "a.csv", [album_row(1)]))
    before = snapshot()
    path = write_csv(tmp_path / "b.csv", [album_row(1, title="New title"), album_row(2), album_row(3, price="-1")])
    out, err = run(path, "--dry-run")
    assert "3 rows: 1 created, 1 changed, 0 unchanged, 1 refused" in out and "dry run" in out
    assert "line 4, column price: a price cannot be negative" in err
    assert snapshot() == before


BAD_ROWS = {
    "wrong kind": ({"details.issue_date": "someday"}, "details.issue_date", "is not a date"),
    "unknown category": ({"categories": "Music > Polka"}, "categories", "no category 'Music > Polka'"),
    "negative price": ({"price": "-9.99"}, "price", "a price cannot be negative"),
    "duplicate SKU": ({"sku": "IMP-00010"}, "sku", "appears more than once"),
    "unknown type": ({"type": "Toaster"}, "type", "no product type called 'Toaster'"),
    # The demo types require nothing: a type of the test's own (``boxed_set``) requires an artist.
    "missing required value": ({"type": "Boxed Set", "details.artist": ""}, "details.artist", "required"),
    "unknown attribute": ({"details.colour": "red"}, "details.colour", "has no attribute 'colour'"),
}


@pytest.fixture
def boxed_set():
    """A product type with a required attribute (``artist``) and the albums' other columns."""
    return ProductType.objects.create(name="Boxed Set", slug="boxed-set", attributes=[
        Attribute(code="artist", label="Artist", kind="text", required=True),
        Attribute(code="genre", label="Genre", kind="text", many=True),
        Attribute(code="issue_date", label="Issue date", kind="date")])


@pytest.mark.parametrize("case", BAD_ROWS)
def test_one_bad_row_among_1000_refuses_the_file(case, tree, boxed_set, tmp_path):
    run(write_csv(tmp_path / "first.csv", [album_row(n, price="1.00") for n in range(0, 1000, 3)]))
    changes, column, reason = BAD_ROWS[case]
    rows = [album_row(n) for n in range(1000)]
    rows[600] = album_row(600, **changes)
    path = write_csv(tmp_path / "p.csv", rows)
    before = snapshot()
    with pytest.raises(CommandError) as refused:
        run(path)
    assert f"line 602, column {column}" in str(refused.value) and "nothing was imported" in str(refused.value)
    assert reason in str(refused.value)
    assert snapshot() == before


def test_good_rows_only_when_asked(tree, tmp_path):
    rows = [album_row(n) for n in range(10)]
    rows[3] = album_row(3, price="-1")
    rows[7] = album_row(7, categories="Nowhere")
    out, err = run(write_csv(tmp_path / "p.csv", rows), "--good-rows-only")
    assert "8 created, 0 changed, 0 unchanged, 2 refused" in out
    assert "line 5, column price" in err and "line 9, column categories" in err
    assert mongo.get_collection("products").count_documents({}) == 8
    assert not Product.objects.filter(sku__in=["IMP-00003", "IMP-00007"]).exists()


def test_a_file_it_cannot_read_is_a_one_line_error(tree, tmp_path):
    with pytest.raises(CommandError, match="no 'sku' column"):
        run(write_csv(tmp_path / "p.csv", [{"title": "x"}]))
    with pytest.raises(CommandError, match="Cannot import"):
        run(str(tmp_path / "missing.csv"))
    with pytest.raises(CommandError, match="--only takes"):
        run(write_csv(tmp_path / "q.csv", [album_row(1)]), "--only", "title")


def test_an_invalid_json_line_is_a_bad_row(tree, tmp_path):
    path = tmp_path / "p.jsonl"
    write_jsonl(path, [album_row(1)])
    with open(path, "a") as handle:
        handle.write("{not json\n")
    with pytest.raises(CommandError, match="line 2: not a JSON object"):
        run(str(path))
    assert not Product.objects.exists()


def test_imported_products_show_on_the_storefront(tree, tmp_path, client):
    run(write_csv(tmp_path / "p.csv", [album_row(1, title="Blue Train Imported")]))
    page = client.get(Product.objects.get_by_sku("IMP-00001").get_absolute_url())
    assert page.status_code == 200 and "Blue Train Imported" in page.content.decode()
    listing = client.get(tree["Rock"].get_absolute_url())
    assert "Blue Train Imported" in listing.content.decode()
    assert [p.sku for p in Product.search.search("imported")] == ["IMP-00001"]
