"""On the server side: availability on every product read, covers (upload,
sizes, generated art), search relevance, finished controls (page numbers, cart messages
by title, the HTML 400 page, the deals link). The browser checks are in
tests/catalog/test_storefront_browser.py."""

import io
import re

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from catalog.media.covers import generated_cover, genre_colour
from catalog.models import Product
from inventory.models import Inventory
from core.mongo.counter import count_operations

from tests.support.products import make_product
from tests.support.admin import album_data, image_rows

SKU = "CHK-0001"  # For Those About To Rock We Salute You, AC/DC, 10 tracks


def png(width=400, height=400, fmt="PNG", colour=(200, 30, 30)):
    """An image file's bytes."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, fmt)
    return buffer.getvalue()


def stock_label(html):
    return re.search(r'class="stock [a-z-]+"[^>]*>([^<]+)<', html).group(1)


# -- availability -------------------------------------------------------------------------


@pytest.mark.parametrize("units, label", [(20, "In stock"), (5, "Only 5 left"), (1, "Only 1 left"),
                                          (0, "Sold out")])
def test_product_page_says_how_available_it_is(client, chinook, units, label):
    Inventory.objects.set_stock(SKU, units)
    html = client.get(f"/p/{SKU}/").content.decode()
    assert stock_label(html) == label
    button = re.search(r"<button[^>]*>Add to cart</button>", html).group(0)
    assert ("disabled" in button) == (units == 0)
    if units:
        # The quantity box never offers more than is available (nor the per-line maximum).
        assert f'max="{min(units, 10)}"' in html
    else:
        assert 'name="qty"' not in html


def test_the_low_stock_threshold_is_a_setting(client, chinook, settings):
    settings.STOCK_LOW_THRESHOLD = 2
    Inventory.objects.set_stock(SKU, 3)
    assert stock_label(client.get(f"/p/{SKU}/").content.decode()) == "In stock"


def test_a_product_without_a_stock_record_is_sold_out(client):
    product = make_product("No Stock Yet")
    assert stock_label(client.get(product.get_absolute_url()).content.decode()) == "Sold out"


def test_category_page_shows_availability_in_its_cached_round_trips(chinook):
    Inventory.objects.set_stock("CHK-0004", 0)  # Let There Be Rock (Rock)
    Inventory.objects.set_stock("CHK-0002", 2)  # Balls to the Wall (Rock)
    client = Client()
    client.get("/c/rock/?sort=title")
    with count_operations() as ops:
        response = client.get("/c/rock/?sort=title&page=1")
    # Another spelling of the page, its data cached: the listing's versions, then those of the
    # products its cached order shows (its cards are keyed by them), then the page's stock.
    assert ops.operations == [("catalog_versions", "find"), ("catalog_versions", "find"),
                              ("inventory", "find")], ops.operations
    by_sku = {p.sku: p.available for p in response.context["page"].object_list}
    html = response.content.decode()
    page = [p.sku for p in response.context["page"].object_list]
    assert "CHK-0002" in page and by_sku["CHK-0002"] == 2
    assert "Only 2 left" in html and "In stock" in html
    product = Product.objects.get_with_availability("CHK-0004")
    assert product.available == 0


def test_product_page_round_trips_include_stock_and_cover(chinook):
    Client().get(f"/p/{SKU}/")
    with count_operations() as ops:
        html = Client().get(f"/p/{SKU}/").content.decode()
    assert (ops.reads, ops.writes) == (2, 1)  # the catalog version, the stock (cached product)
    assert "In stock" in html and 'class="cover generated"' in html


def test_home_deals_search_and_artist_pages_show_availability(client, chinook):
    Inventory.objects.set_stock(SKU, 0)
    for url in ("/", "/deals/", "/search/?q=rock", "/artist/AC/DC/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert re.search(r'class="stock (in-stock|low|sold-out)"', response.content.decode()), url
    html = client.get("/artist/AC/DC/").content.decode()
    assert "Sold out" in html


def test_sold_out_after_the_last_units_go_into_a_cart(client, chinook):
    Inventory.objects.set_stock(SKU, 2)
    client.post("/cart/add/", {"sku": SKU, "qty": 2})
    html = Client().get(f"/p/{SKU}/").content.decode()
    assert stock_label(html) == "Sold out"
    assert re.search(r"<button[^>]*disabled[^>]*>Add to cart", html)


# -- covers -------------------------------------------------------------------------------


def test_generated_cover_shows_title_artist_and_genre_colour_escaped():
    svg = generated_cover("<script>alert(1)</script> & Co", "AC/DC", "Rock")
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "&amp; Co" in svg
    assert "AC/DC" in svg and genre_colour("Rock") in svg
    assert genre_colour("Rock") == genre_colour("rock")
    assert genre_colour("Rock") != genre_colour("Jazz")


def test_pages_show_generated_covers_as_images_with_alt_text(client, chinook):
    html = client.get("/c/rock/").content.decode()
    covers = re.findall(r'<img class="cover generated" src="data:image/svg\+xml[^"]*"[^>]*>', html)
    assert len(covers) == 24
    assert all('alt="Cover of ' in c and 'loading="lazy"' in c for c in covers)


def test_an_uploaded_cover_is_shown_in_sizes_made_once(client, chinook):
    product = Product.objects.get(sku=SKU)
    product.image = SimpleUploadedFile("cover.png", png(), content_type="image/png")
    product.save()
    assert default_storage.exists(product.image.name)
    listing = client.get("/artist/AC/DC/").content.decode()
    thumb = re.search(r'<img class="cover" src="(/media/CACHE/images/covers/cover[^"]+)" srcset="[^"]+ 1x, '
                      r'[^"]+ 2x" width="240" height="240" alt="Cover of [^"]+" loading="lazy"', listing)
    assert thumb, listing
    with Image.open(io.BytesIO(b"".join(client.get(thumb.group(1)).streaming_content))) as made:
        assert made.size == (240, 240)
    html = client.get(f"/p/{SKU}/").content.decode()
    img = re.search(r'<img class="cover" src="([^"]+)" srcset="([^"]+)"[^>]*>', html)
    assert img, html
    src, srcset = img.groups()
    assert src.startswith("/media/CACHE/images/") and " 2x" in srcset
    first = client.get(src)
    assert first.status_code == 200
    with Image.open(io.BytesIO(b"".join(first.streaming_content))) as made:
        assert made.size == (480, 480)
    # The second page view reuses the files made (the same names, nothing new written).
    files = set(default_storage.listdir("CACHE/images/covers/cover")[1])
    client.get(f"/p/{SKU}/")
    assert set(default_storage.listdir("CACHE/images/covers/cover")[1]) == files


def test_a_reload_of_the_catalog_keeps_an_uploaded_cover(chinook):
    from django.core.management import call_command

    product = Product.objects.get(sku=SKU)
    product.image = SimpleUploadedFile("keep.png", png(), content_type="image/png")
    product.save()
    call_command("load_catalog", verbosity=0)
    assert Product.objects.get(sku=SKU).image.name == product.image.name


def first_image(upload):
    """The product form's image rows with ``upload`` as its one image (its cover)."""
    return image_rows({"image": upload, "alt": "", "position": "0"})


@pytest.fixture
def staff(admin_client, make_tree):
    return admin_client


def test_staff_upload_a_cover_in_the_admin(staff):
    upload = SimpleUploadedFile("front.png", png(), content_type="image/png")
    # The cover is the product's first image (catalog/media/gallery.py: tests/catalog/test_product_images.py).
    response = staff.post("/admin/catalog/product/add/", {**album_data(), **first_image(upload)})
    assert response.status_code == 302, response.content.decode()[:2000]
    product = Product.objects.get(sku="NEW-1")
    assert product.image.name.startswith("products/front")
    assert default_storage.exists(product.image.name)
    form = staff.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert 'enctype="multipart/form-data"' in form


@pytest.mark.parametrize("upload, message", [
    (lambda: SimpleUploadedFile("x.png", b"not an image", content_type="image/png"), "valid image"),
    (lambda: SimpleUploadedFile("x.gif", png(fmt="GIF"), content_type="image/gif"), "JPEG, PNG or WebP"),
    (lambda: SimpleUploadedFile("x.png", png(100, 100), content_type="image/png"), "200 to 6000"),
    (lambda: SimpleUploadedFile("x.png", png(400, 7000), content_type="image/png"), "200 to 6000"),
])
def test_a_bad_cover_is_a_form_error_and_adds_nothing(staff, upload, message):
    response = staff.post("/admin/catalog/product/add/", {**album_data(), **first_image(upload())})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()


def test_a_cover_over_the_size_limit_is_refused(staff, settings):
    settings.COVER_MAX_BYTES = 1000
    upload = SimpleUploadedFile("big.png", png(), content_type="image/png")
    assert len(png()) > 1000
    response = staff.post("/admin/catalog/product/add/", {**album_data(), **first_image(upload)})
    assert "at most" in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()


def test_media_are_not_served_by_django_unless_asked(client, settings):
    default_storage.save("covers/served.png", io.BytesIO(png()))
    assert client.get("/media/covers/served.png").status_code == 200
    settings.SHOP_SERVE_MEDIA = False
    assert client.get("/media/covers/served.png").status_code == 404


# -- search relevance -----------------------------------------------------------------------


@pytest.fixture
def venom():
    make_product("Zed Songs", artist="Someone", tracks=["Inject The Venom", "Other"])
    make_product("Alpha Hits", artist="Venom")
    make_product("Venom Rising", artist="Nobody")
    make_product("Beta Film", type="Film", actor=["Venom Jones"])
    make_product("Plain", description="A review of venom.")  # whole words: not "venomous"


def test_search_ranks_title_then_artist_then_track(venom):
    results = Product.search.search("venom")[0:10]
    assert [p.title for p in results] == [
        "Venom Rising", "Alpha Hits", "Zed Songs", "Beta Film", "Plain"]
    assert [p.matched for p in results] == [
        "title", "artist: Venom", "track: Inject The Venom", "cast: Venom Jones", "description"]


def test_search_page_says_what_matched_and_sorts_by_price(client, venom):
    html = client.get("/search/", {"q": "venom"}).content.decode()
    assert "Matched track: Inject The Venom" in html
    assert '<option value="price"' in html
    response = client.get("/search/", {"q": "venom", "sort": "-price"})
    prices = [p.pricing.retail for p in response.context["page"].object_list]
    assert prices == sorted(prices, reverse=True)
    assert client.get("/search/", {"q": "venom", "sort": "bogus"}).status_code == 200


def test_search_ranking_over_chinook(client, chinook):
    # "Inject The Venom" is a track of AC/DC's For Those About To Rock.
    results = Product.search.search("inject")[0:5]
    assert results[0].sku == SKU and results[0].matched == "track: Inject The Venom"


# -- finished controls ----------------------------------------------------------------------


def test_page_numbers_with_first_previous_next_last(client, settings):
    settings.CATALOG_PAGE_SIZE = 2
    for i in range(30):
        make_product(f"Rock {i:02d}")
    html = client.get("/search/", {"q": "rock", "page": 4}).content.decode()
    for text in ("« First", "‹ Previous", "Next ›", "Last »"):
        assert text in html
    assert 'aria-current="page"><span class="visually-hidden">Page </span>4</span>' in html
    assert "page=15" in html and "…" in html and "page=10" not in html
    first = client.get("/search/", {"q": "rock"}).content.decode()
    assert "« First" not in first and "Last »" in first


def test_cart_messages_use_titles_and_link_to_the_cart(client, chinook):
    Inventory.objects.set_stock(SKU, 3)
    title = Product.objects.get(sku=SKU).title
    html = client.post("/cart/add/", {"sku": SKU, "qty": 1}, follow=True).content.decode()
    assert f"Added 1 × “{title}” to your cart." in html and '<a href="/cart/">View cart</a>' in html
    html = client.post("/cart/update/", {"sku": SKU, "qty": 2}, follow=True).content.decode()
    assert f"Your cart now holds 2 × “{title}”." in html
    html = client.post("/cart/update/", {"sku": SKU, "qty": 9}, follow=True).content.decode()
    message = re.search(r'<ul class="messages".*?</ul>', html, re.S).group(0)
    assert f"Only 1 of “{title}” left" in message and SKU not in message
    html = client.post("/cart/remove/", {"sku": SKU}, follow=True).content.decode()
    assert f"Removed “{title}” from your cart." in html
    html = client.post("/cart/add/", {"sku": SKU, "qty": 4}, follow=True).content.decode()
    assert f"Only 3 of “{title}” left" in html


def test_line_limit_message_speaks_of_the_cart(client, chinook, settings):
    Inventory.objects.set_stock(SKU, 30)
    client.post("/cart/add/", {"sku": SKU, "qty": 10})
    html = client.post("/cart/add/", {"sku": SKU, "qty": 1}, follow=True).content.decode()
    assert "at most 10 of" in html and "per order" not in html


def test_sold_out_message_uses_the_title(client, chinook):
    Inventory.objects.set_stock(SKU, 0)
    title = Product.objects.get(sku=SKU).title
    html = client.post("/cart/add/", {"sku": SKU, "qty": 1}, follow=True).content.decode()
    assert f"“{title}” is sold out." in html


def test_a_bad_cart_change_is_the_shops_400_page(client, chinook):
    client.post("/cart/add/", {"sku": SKU, "qty": 1})
    response = client.post("/cart/update/", {"sku": SKU, "qty": "lots"})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "Quantity: Enter a whole number." in html and 'class="site-header"' in html
    assert 'href="/cart/"' in html


def test_cart_quantity_box_offers_no_more_than_available(client, chinook):
    Inventory.objects.set_stock(SKU, 3)
    client.post("/cart/add/", {"sku": SKU, "qty": 2})
    html = client.get("/cart/").content.decode()
    assert 'value="2" min="0" max="3"' in html


def test_deals_are_linked_from_the_navigation(client, chinook):
    html = client.get("/").content.decode()
    assert html.count('href="/deals/"') == 2  # the bar and the phone menu
    assert 'href="#main"' in html and '<main id="main"' in html  # the skip link


def test_search_ranks_by_the_whole_words_it_matched():
    # Found by the track's word "venom"; the title only has "Venomous", which the search
    # does not match, so the title must not rank it first.
    make_product("Venomous Hits", artist="Someone", tracks=["Venom"])
    [result] = Product.search.search("venom")[0:10]
    assert result.matched == "track: Venom"
