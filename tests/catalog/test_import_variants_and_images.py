"""import_products: variant rows (variant_of, the type's variant attributes), covers from --media-dir."""

import csv
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from catalog.models import ProductImage
from core import mongo
from inventory.models import Inventory

from .importfiles import album_row, snapshot, write_csv


@pytest.fixture
def tree(make_tree):
    return make_tree({"Music": {"Rock": {}}})


def run(*args):
    out = StringIO()
    call_command("import_products", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def variant(sku, of, fmt, price="11.00", stock="4"):
    return {"sku": sku, "type": "Audio Album", "variant_of": of, "price": price, "stock": stock, "details.format": fmt}


def test_variants_get_their_own_sku_price_and_stock(tree, tmp_path):
    rows = [variant("IMP-00001-LP", "IMP-00001", "Vinyl", "19.99", "3"),  # before its product: fine
            album_row(1), variant("IMP-00001-CD", "IMP-00001", "CD")]
    path = write_csv(tmp_path / "v.csv", rows)
    assert "3 created, 0 changed, 0 unchanged, 0 refused" in run(path, "--dry-run")
    assert "3 created, 0 changed, 0 unchanged, 0 refused" in run(path)
    document = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    assert [(v["sku"], v["options"], v["pricing"]["retail"]) for v in document["variants"]] == [
        ("IMP-00001-LP", {"format": "Vinyl"}, 1999), ("IMP-00001-CD", {"format": "CD"}, 1100)]
    assert Inventory.objects.available("IMP-00001-LP") == 3 and Inventory.objects.available("IMP-00001-CD") == 4
    before = snapshot()
    assert "0 created, 0 changed, 3 unchanged" in run(path)
    assert snapshot() == before
    out = StringIO()
    call_command("export_products", "--type", "Audio Album", stdout=out)
    exported = {r["sku"]: r for r in csv.DictReader(StringIO(out.getvalue()))}
    assert exported["IMP-00001-LP"]["variant_of"] == "IMP-00001" and exported["IMP-00001-LP"]["details.format"] == "Vinyl"
    (tmp_path / "export.csv").write_text(out.getvalue(), encoding="utf-8")
    assert "0 created, 0 changed, 3 unchanged" in run(str(tmp_path / "export.csv"))
    assert "1 changed" in run(write_csv(tmp_path / "feed.csv", [{"sku": "IMP-00001-LP", "price": "15.00"}]),
                              "--only", "price")
    assert mongo.get_collection("products").find_one({"sku": "IMP-00001"})["variants"][0]["pricing"]["retail"] == 1500


def test_a_sku_is_a_product_or_a_variant_never_both(tree, tmp_path):
    run(write_csv(tmp_path / "a.csv", [album_row(1), album_row(2), variant("V-1", "IMP-00001", "CD")]))
    before = snapshot()
    for rows, message in [
        ([album_row(3, sku="V-1")], "line 2, column sku: V-1 is a variant of IMP-00001"),
        ([variant("IMP-00002", "IMP-00001", "CD")], "line 2, column sku: IMP-00002 is a product's SKU"),
        ([variant("V-1", "IMP-00002", "CD")], "line 2, column sku: V-1 is a variant of IMP-00001"),
    ]:
        with pytest.raises(CommandError, match=message):
            run(write_csv(tmp_path / "b.csv", rows))
    assert snapshot() == before


@pytest.mark.parametrize("rows, message", [
    ([variant("V-1", "NOPE", "CD")], "line 2, column variant_of: no product with SKU NOPE"),
    ([album_row(1), {**variant("V-1", "IMP-00001", "CD"), "type": "Film"}], "line 3, column"),
    ([album_row(1), variant("V-1", "IMP-00001", "")], "line 3, column variant_of: a variant needs a value"),
    ([album_row(1), {**variant("V-1", "IMP-00001", "CD"), "details.artist": "X"}],
     "line 3, column details.artist: not a column of this kind of row"),
    ([album_row(1, **{"details.format": "CD"})], "line 2, column details.format: not a column of this kind of row"),
])
def test_bad_variant_rows(tree, tmp_path, rows, message):
    with pytest.raises(CommandError, match=message):
        run(write_csv(tmp_path / "v.csv", rows))
    assert not mongo.get_collection("products").count_documents({})


def test_a_cover_from_the_media_folder(tree, tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    (tmp_path / "photos").mkdir()
    Image.new("RGB", (400, 400), "red").save(tmp_path / "photos" / "one.jpg", "JPEG")
    (tmp_path / "photos" / "fake.jpg").write_bytes(b"\xff\xd8\xff not really a jpeg")
    with pytest.raises(CommandError, match="column images: fake.jpg: Upload a valid image"):
        run(write_csv(tmp_path / "f.csv", [album_row(1, images="fake.jpg")]), "--media-dir", str(tmp_path / "photos"))
    path = write_csv(tmp_path / "p.csv", [album_row(1, images="one.jpg")])
    with pytest.raises(CommandError, match="line 2, column images: image files need --media-dir"):
        run(path)
    with pytest.raises(CommandError, match="column images: no file 'two.jpg'"):
        run(write_csv(tmp_path / "q.csv", [album_row(1, images="two.jpg")]), "--media-dir", str(tmp_path / "photos"))
    with pytest.raises(CommandError, match="column images: image URLs are not fetched"):
        run(write_csv(tmp_path / "r.csv", [album_row(1, images="https://example.com/a.jpg")]))
    with pytest.raises(CommandError, match="outside the media folder"):
        run(write_csv(tmp_path / "s.csv", [album_row(1, images="../p.csv")]), "--media-dir", str(tmp_path / "photos"))
    assert "1 created" in run(path, "--media-dir", str(tmp_path / "photos"))
    document = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    stored = document["image"]
    assert stored.startswith("products/one") and (tmp_path / "media" / stored).exists()
    assert document["images"] == [{"path": stored, "alt": ""}]
    assert [(i.image.name, i.position) for i in ProductImage.objects.filter(product_id=document["_id"])] == [(stored, 0)]
    out = StringIO()
    call_command("export_products", "--category", "Music", stdout=out)
    (tmp_path / "export.csv").write_text(out.getvalue(), encoding="utf-8")
    assert "0 changed, 1 unchanged" in run(str(tmp_path / "export.csv"))  # its stored cover: no --media-dir needed


def test_several_images_become_the_products_images_in_order(tree, tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    (tmp_path / "photos").mkdir()
    for name, colour in (("front.jpg", "red"), ("back.jpg", "blue"), ("inside.jpg", "green")):
        Image.new("RGB", (300, 300), colour).save(tmp_path / "photos" / name, "JPEG")
    media = ("--media-dir", str(tmp_path / "photos"))
    assert "1 created" in run(write_csv(tmp_path / "p.csv", [album_row(1, images="front.jpg|back.jpg")]), *media)
    document = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    paths = [i["path"] for i in document["images"]]
    assert paths[0].startswith("products/front") and paths[1].startswith("products/back")
    assert len(paths) == 2 and document["image"] == paths[0]
    assert [(i.image.name, i.position) for i in ProductImage.objects.filter(product_id=document["_id"])] == [
        (paths[0], 0), (paths[1], 1)]
    out = StringIO()
    call_command("export_products", "--category", "Music", stdout=out)
    exported = next(csv.DictReader(StringIO(out.getvalue())))
    assert exported["images"] == "|".join(paths)
    (tmp_path / "export.csv").write_text(out.getvalue(), encoding="utf-8")
    before = snapshot()
    assert "0 changed, 1 unchanged" in run(str(tmp_path / "export.csv"))
    assert snapshot() == before
    ProductImage.objects.filter(product_id=document["_id"], position=0).update(alt="The front cover")
    ProductImage.objects.sync(document["_id"])
    # Reordered, one added: only the new file is copied; the images are the cell's, in its order.
    cell = f"{paths[1]}|inside.jpg|{paths[0]}"
    assert "0 created, 1 changed" in run(write_csv(tmp_path / "q.csv", [album_row(1, images=cell)]), *media)
    document = mongo.get_collection("products").find_one({"sku": "IMP-00001"})
    now = [i["path"] for i in document["images"]]
    assert now[0] == paths[1] and now[2] == paths[0] and now[1].startswith("products/inside")
    assert document["image"] == paths[1] and document["images"][2]["alt"] == "The front cover"  # kept
    assert [(i.image.name, i.alt) for i in ProductImage.objects.filter(product_id=document["_id"])] == [
        (now[0], ""), (now[1], ""), (now[2], "The front cover")]


def test_a_decompression_bomb_is_refused(tree, tmp_path, monkeypatch):
    Image.new("RGB", (400, 400), "red").save(tmp_path / "bomb.png", "PNG")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 400 * 400 // 3)  # over twice the limit: Pillow refuses it
    with pytest.raises(CommandError, match="column images: bomb.png: Upload a valid image"):
        run(write_csv(tmp_path / "p.csv", [album_row(1, images="bomb.png")]), "--media-dir", str(tmp_path))
    assert not mongo.get_collection("products").count_documents({})
