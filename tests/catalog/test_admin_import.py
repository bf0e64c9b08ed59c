"""The products admin: upload a file, see its dry run, confirm, import; export a category or a type."""

import csv
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from catalog.models import Product
from core import mongo
from inventory.models import Inventory

from .importfiles import album_row, snapshot

IMPORT = "/admin/catalog/product/import/"


def csv_upload(rows, name="products.csv"):
    out = StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return SimpleUploadedFile(name, out.getvalue().encode(), content_type="text/csv")


@pytest.fixture
def tree(make_tree):
    return make_tree({"Music": {"Rock": {}}})


def confirm_url(html):
    return re.search(r'action="(/admin/catalog/product/import/[0-9a-f]{32}/csv/)"', html).group(1)


def test_upload_then_confirm_then_import(admin_client, tree):
    assert "Import" in admin_client.get("/admin/catalog/product/").content.decode()
    response = admin_client.post(IMPORT, {"file": csv_upload([album_row(1), album_row(2)])})
    html = response.content.decode()
    assert response.status_code == 200 and "To create</th><td>2<" in html
    assert not Product.objects.exists()  # the dry run wrote nothing
    response = admin_client.post(confirm_url(html))
    assert response.status_code == 302 and response["Location"] == "/admin/catalog/product/"
    assert Product.objects.count() == 2 and Inventory.objects.available("IMP-00002") == 5
    assert not mongo.get_collection("products").find_one({"sku": "IMP-00001"}).get("image")
    assert admin_client.post(confirm_url(html)).status_code == 404  # the upload is gone once imported


def test_bad_rows_are_listed_and_change_nothing_unless_good_rows_only(admin_client, tree):
    rows = [album_row(1), album_row(2, price="-3"), album_row(3, categories="Music > Polka")]
    html = admin_client.post(IMPORT, {"file": csv_upload(rows)}).content.decode()
    assert "line 3, column price: a price cannot be negative" in html
    assert "line 4, column categories: no category &#x27;Music &gt; Polka&#x27;" in html
    before = snapshot()
    response = admin_client.post(confirm_url(html))
    assert response.status_code == 200 and "Nothing was imported" in response.content.decode()
    assert snapshot() == before
    response = admin_client.post(confirm_url(html), {"good_rows_only": "1"})
    assert response.status_code == 302
    assert list(Product.objects.values_list("sku", flat=True)) == ["IMP-00001"]


def test_an_unreadable_file_is_a_message_not_an_error(admin_client, tree):
    response = admin_client.post(IMPORT, {"file": csv_upload([{"title": "no sku"}])}, follow=True)
    assert response.status_code == 200 and "no &#x27;sku&#x27; column" in response.content.decode()


def test_staff_who_may_only_look_cannot_import(client, tree):
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_product"))
    client.force_login(user)
    assert client.post(IMPORT, {"file": csv_upload([album_row(1)])}).status_code == 403
    assert client.post(f"{IMPORT}{'0' * 32}/csv/").status_code == 403
    assert client.get("/admin/catalog/product/export/", {"type_name": "Audio Album"}).status_code == 200
    assert not Product.objects.exists()


def test_a_forged_token_is_not_found(admin_client, tree):
    assert admin_client.post(f"{IMPORT}{'g' * 32}/csv/").status_code == 404
    assert admin_client.post(f"{IMPORT}{'a' * 32}/exe/").status_code == 404
    assert admin_client.post(f"{IMPORT}{'a' * 32}/csv/").status_code == 404


def test_export_page_downloads_a_category(admin_client, chinook):
    assert "Choose a category" not in admin_client.get("/admin/catalog/product/export/").content.decode()
    form = admin_client.get("/admin/catalog/product/export/", {"type_name": ""}).content.decode()
    assert "Choose a category or a product type" in form
    rock = re.search(r'<option value="([0-9a-f]{24})">Music &gt; Rock</option>', form).group(1)
    response = admin_client.get("/admin/catalog/product/export/", {"category": rock})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(StringIO(response.content.decode())))
    products = {r["sku"] for r in rows if not r["variant_of"]}
    assert products and all("Music > Rock" in r["categories"] for r in rows if not r["variant_of"])
    assert all(r["variant_of"] in products for r in rows if r["variant_of"])  # variants below their album
