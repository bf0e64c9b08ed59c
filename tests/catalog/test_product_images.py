"""A product's images (catalog/media/gallery.py): uploaded in the admin's product form, ordered,
each with alt text, copied into the product's document so its page and card read nothing
more; a decompression bomb and an oversized file refused with nothing stored; the
generated cover for a product without images."""

import importlib
import io
import re
import struct
import zlib

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from PIL import Image

from catalog.models import Product, ProductImage
from core.mongo.counter import count_operations
from tests.support.admin import album_data, image_rows
from tests.support.products import make_product


def picture(name, colour=(200, 30, 30), size=(400, 400)):
    """An upload of a PNG file of ``size`` pixels."""
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/png")


def bomb(side=20_000):
    """A real PNG of ``side`` x ``side`` black pixels (1 bit each, 400 million at the default:
    over twice Pillow's limit), compressed to a few tens of kilobytes."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = b"\0" * (1 + side // 8)  # filter byte, then the row's bits
    compressor, parts = zlib.compressobj(9), []
    for _ in range(side):
        parts.append(compressor.compress(row))
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts))
            + chunk(b"IEND", b""))
    return SimpleUploadedFile("bomb.png", data, content_type="image/png")


def stored_files():
    """The names of the files under ``products/`` in the default storage."""
    return set(default_storage.listdir("products")[1]) if default_storage.exists("products") else set()


@pytest.fixture
def staff(admin_client, make_tree):
    return admin_client


def add(staff, *rows, **changes):
    return staff.post("/admin/catalog/product/add/", {**album_data(**changes), **image_rows(*rows)})


def change(staff, product, *rows, initial):
    return staff.post(f"/admin/catalog/product/{product.pk}/change/",
                      {**album_data(sku=product.sku), **image_rows(*rows, initial=initial)})


def page(sku):
    return Client().get(f"/p/{sku}/").content.decode()


def img_tags(html):
    return re.findall(r"<img [^>]*>", html)


def test_two_images_uploaded_in_the_admin_ordered_with_alt_text_on_the_page(staff):
    response = add(staff, {"image": picture("front.png"), "alt": "The front, in red", "position": "0"},
                   {"image": picture("back.png", (20, 90, 160)), "alt": "The back, in blue", "position": "1"})
    assert response.status_code == 302, response.content.decode()[:3000]
    product = Product.objects.get_by_sku("NEW-1")
    assert [(i.path.split("/")[1][:4], i.alt) for i in product.images] == [
        ("fron", "The front, in red"), ("back", "The back, in blue")]
    assert product.image.name == product.images[0].path  # the first is the cover
    assert all(default_storage.exists(i.path) for i in product.images)

    html = page("NEW-1")
    cover = re.search(r'<a href="(/media/CACHE/images/products/front[^"]+)"><img class="cover" [^>]*>', html)
    assert cover and 'alt="The front, in red"' in cover.group(0) and 'width="480"' in cover.group(0)
    thumbs = [t for t in img_tags(html) if 'class="thumb"' in t]
    assert len(thumbs) == 1
    assert re.search(r'src="/media/CACHE/images/products/back[^"]+" srcset="[^"]+ 1x, [^"]+ 2x" '
                     r'width="96" height="96" alt="The back, in blue" loading="lazy"', thumbs[0])
    with Image.open(io.BytesIO(b"".join(Client().get(cover.group(1)).streaming_content))) as large:
        assert large.size == (400, 400)  # the large size never enlarges

    # A card shows the first image (its alt text is the card's: "Cover of <title>").
    cards = Client().get("/search/?q=fresh").content.decode()
    assert re.search(r'<img class="cover" src="/media/CACHE/images/products/front[^"]+" [^>]*'
                     r'width="240" height="240" alt="Cover of Fresh Album"', cards)

    # Reorder: the back first. The page follows, and still reads nothing more than before.
    rows = ProductImage.objects.filter(product=product).order_by("position")
    front, back = list(rows)
    response = change(staff, product, {"id": str(front.pk), "alt": front.alt, "position": "5"},
                      {"id": str(back.pk), "alt": back.alt, "position": "1"}, initial=2)
    assert response.status_code == 302, response.content.decode()[:3000]
    product = Product.objects.get_by_sku("NEW-1")
    assert [i.alt for i in product.images] == ["The back, in blue", "The front, in red"]
    assert product.image.name == back.image.name
    page("NEW-1")
    with count_operations() as ops:
        html = page("NEW-1")
    assert (ops.reads, ops.writes) == (2, 1)  # the catalog version, the stock (cached product)
    assert re.search(r'<img class="cover" src="/media/CACHE/images/products/back[^>]*alt="The back, in blue"', html)
    assert 'alt="The front, in red"' in "".join(t for t in img_tags(html) if 'class="thumb"' in t)


def test_removing_images_leaves_the_next_as_cover_then_the_generated_one(staff):
    add(staff, {"image": picture("one.png"), "alt": "One", "position": "0"},
        {"image": picture("two.png"), "alt": "", "position": "1"},
        {"image": picture("three.png"), "alt": "Three", "position": "2"})
    product = Product.objects.get_by_sku("NEW-1")
    html = page("NEW-1")
    # A thumbnail without alt text is named after the product, so that its link is named.
    assert 'alt="Fresh Album, image 2"' in html and 'alt="Three"' in html
    one, two, three = ProductImage.objects.filter(product=product).order_by("position")
    change(staff, product, {"id": str(one.pk), "alt": "One", "position": "0", "DELETE": "on"},
           {"id": str(two.pk), "alt": "", "position": "1"},
           {"id": str(three.pk), "alt": "Three", "position": "2"}, initial=3)
    product = Product.objects.get_by_sku("NEW-1")
    assert product.image.name == two.image.name and [i.alt for i in product.images] == ["", "Three"]
    assert 'alt="Cover of Fresh Album"' in page("NEW-1")  # the new first has no alt text
    change(staff, product, {"id": str(two.pk), "alt": "", "position": "1", "DELETE": "on"},
           {"id": str(three.pk), "alt": "Three", "position": "2", "DELETE": "on"}, initial=2)
    product = Product.objects.get_by_sku("NEW-1")
    assert (product.image.name, product.images) == ("", [])
    html = page("NEW-1")
    assert 'class="cover generated"' in html and 'class="thumb"' not in html


def test_a_product_form_posted_without_its_image_rows_keeps_the_images(staff):
    add(staff, {"image": picture("kept.png"), "alt": "Kept", "position": "0"})
    product = Product.objects.get_by_sku("NEW-1")
    response = staff.post(f"/admin/catalog/product/{product.pk}/change/",
                          album_data(sku="NEW-1", title="Renamed"))
    assert response.status_code == 302
    product = Product.objects.get_by_sku("NEW-1")
    assert product.title == "Renamed" and [i.alt for i in product.images] == ["Kept"]
    assert ProductImage.objects.filter(product=product).count() == 1


def test_the_change_form_shows_the_stored_images(staff):
    add(staff, {"image": picture("shown.png"), "alt": "Shown", "position": "0"})
    product = Product.objects.get_by_sku("NEW-1")
    form = staff.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert 'enctype="multipart/form-data"' in form and 'name="product_images-0-alt"' in form
    assert re.search(r'<img src="/media/CACHE/images/products/shown[^"]+" width="96" height="96" alt="Shown">', form)


def test_a_decompression_bomb_is_refused_and_nothing_is_stored(staff):
    before = stored_files()
    response = add(staff, {"image": bomb(), "alt": "Boom", "position": "0"})
    assert response.status_code == 200
    assert f"more than {Image.MAX_IMAGE_PIXELS:,} pixels" in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()
    assert ProductImage.objects.count() == 0 and stored_files() == before


def test_an_image_just_over_pillows_limit_is_refused_too(staff, monkeypatch):
    # Between one and two times the limit, Pillow only warns; the upload is refused all the same.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 300 * 300)
    make_product("Kept as it was", sku="KEEP-1")
    before = stored_files()
    product = Product.objects.get_by_sku("KEEP-1")
    response = change(staff, product, {"image": picture("big.png", size=(400, 400)), "position": "0"}, initial=0)
    assert response.status_code == 200 and "more than 90,000 pixels" in response.content.decode()
    assert ProductImage.objects.count() == 0 and stored_files() == before
    assert Product.objects.get_by_sku("KEEP-1").images == []


@pytest.mark.parametrize("upload, message", [
    (lambda: SimpleUploadedFile("x.png", b"not an image", content_type="image/png"), "valid image"),
    (lambda: picture("small.png", size=(100, 100)), "200 to 6000"),
])
def test_a_bad_image_is_a_form_error_and_stores_nothing(staff, upload, message):
    before = stored_files()
    response = add(staff, {"image": upload(), "alt": "", "position": "0"})
    assert response.status_code == 200 and message in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists() and stored_files() == before


def test_an_image_over_the_size_limit_is_refused(staff, settings):
    settings.COVER_MAX_BYTES = 1000
    before = stored_files()
    response = add(staff, {"image": picture("heavy.png"), "alt": "", "position": "0"})
    assert response.status_code == 200 and "at most" in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()
    assert ProductImage.objects.count() == 0 and stored_files() == before


def test_a_product_without_images_shows_the_generated_cover():
    product = make_product("Plain Album", artist="Nobody")
    html = page(product.sku)
    assert re.search(r'<img class="cover generated" src="data:image/svg\+xml[^"]*" width="480" height="480" '
                     r'alt="Cover of Plain Album"', html)
    assert 'class="gallery"' not in html and "/media/" not in html


def test_a_stored_document_without_images_still_shows(client):
    """A product document written before images existed (no ``images`` key) reads fine."""
    product = make_product("Older Album")
    Product.objects.collection.update_one({"_id": product.pk}, {"$unset": {"images": ""}})
    html = client.get(product.get_absolute_url()).content.decode()
    assert 'class="cover generated"' in html and 'alt="Cover of Older Album"' in html


def test_the_migration_makes_each_stored_cover_the_first_image():
    migration = importlib.import_module("catalog.migrations.0011_product_images")
    with_cover, without = make_product("Had A Cover"), make_product("Had None")
    default_storage.save("covers/old.png", io.BytesIO(picture("old.png").read()))
    Product.objects.collection.update_one({"_id": with_cover.pk},
                                          {"$set": {"image": "covers/old.png"}, "$unset": {"images": ""}})

    class Editor:
        connection = connections["default"]

    migration.covers_become_first_images(None, Editor())
    product = Product.objects.get_by_sku(with_cover.sku)
    assert [(i.path, i.alt) for i in product.images] == [("covers/old.png", "")]
    assert [(p.image.name, p.position) for p in ProductImage.objects.filter(product=product)] == [
        ("covers/old.png", 0)]
    assert Product.objects.get_by_sku(without.sku).images == []
    assert re.search(r'<img class="cover" src="/media/CACHE/images/covers/old', page(with_cover.sku))


def test_a_reload_of_the_catalog_keeps_the_images(staff, chinook):
    from django.core.management import call_command

    product = Product.objects.get(sku="CHK-0001")
    change(staff, product, {"image": picture("kept.png"), "alt": "Kept", "position": "0"}, initial=0)
    call_command("load_catalog", verbosity=0)
    product = Product.objects.get_by_sku("CHK-0001")
    assert [i.alt for i in product.images] == ["Kept"] and product.image.name.startswith("products/kept")


def test_the_storage_and_its_options_come_from_the_environment(tmp_path):
    """Production names the storage backend and its options (docs/production.md): here
    Django's file storage under another folder and URL, as an S3 bucket's would be."""
    import json
    import subprocess
    import sys

    from tests.shop.test_serving import BASE_DIR, production_environ

    environ = production_environ(
        DJANGO_MEDIA_STORAGE="django.core.files.storage.FileSystemStorage",
        DJANGO_MEDIA_STORAGE_OPTIONS=json.dumps({"location": str(tmp_path),
                                                 "base_url": "https://media.example.com/shop/"}))
    script = ("import django; django.setup(); from django.core.files.storage import default_storage as s; "
              "print(s.location); print(s.url('products/a.png'))")
    result = subprocess.run([sys.executable, "-c", script], cwd=BASE_DIR, env=environ,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path), "https://media.example.com/shop/products/a.png"]


def test_deleting_a_product_in_the_admin_deletes_its_images_documents(staff):
    add(staff, {"image": picture("gone.png"), "alt": "Gone", "position": "0"})
    product = Product.objects.get_by_sku("NEW-1")
    confirm = staff.get(f"/admin/catalog/product/{product.pk}/delete/").content.decode()
    assert "Gone" in confirm  # the confirmation lists the images going with it
    response = staff.post(f"/admin/catalog/product/{product.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Product.objects.filter(sku="NEW-1").exists()
    assert ProductImage.objects.count() == 0


def test_a_new_row_starts_after_the_stored_images(staff):
    add(staff, {"image": picture("a.png"), "alt": "A", "position": "0"},
        {"image": picture("b.png"), "alt": "B", "position": "4"})
    product = Product.objects.get_by_sku("NEW-1")
    form = staff.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert re.search(r'name="product_images-2-position" value="5"', form)
    assert re.search(r'name="product_images-__prefix__-position" value="5"', form)


def test_a_product_save_leaves_the_images_another_save_changed(staff):
    """The product's save writes the copy of its images it read; the copy is written again
    from the images after it, so an image added meanwhile by another staff member stays."""
    add(staff, {"image": picture("first.png"), "alt": "First", "position": "0"})
    product = Product.objects.get_by_sku("NEW-1")
    ProductImage.objects.create(product=product, image="products/first.png", alt="Meanwhile", position=1)
    response = staff.post(f"/admin/catalog/product/{product.pk}/change/", album_data(title="Renamed"))
    assert response.status_code == 302
    assert [i.alt for i in Product.objects.get_by_sku("NEW-1").images] == ["First", "Meanwhile"]
