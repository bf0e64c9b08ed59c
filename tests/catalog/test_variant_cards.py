"""Listings narrowed by a variant attribute show the variant asked for (``catalog/listings/cards.py``):
each card the cheapest matching variant's price, was-price and stock, linking to the product
page with it chosen, at no more round trips than the unfiltered page; and a variant's own
image (``Variant.image``), uploaded in the admin, shown as the product page's cover when it is
chosen (``?variant=``; ``static/shop/variants.js`` swaps it with JavaScript)."""

import io
import re

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from catalog.listings.cards import CardList, matching_variant
from catalog.models import Pricing, Product, Variant
from catalog.products.variants import chosen_cover
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.support.admin import album_data
from tests.support.products import make_product

#: (product SKU, title, [(variant SKU, format, list cents, retail cents, units)]).
ALBUMS = [
    ("LTBR", "Let There Be Rock", [("LTBR-CD", "CD", 1299, 1299, 3), ("LTBR-LP", "Vinyl", 2999, 2499, 1),
                                   ("LTBR-DL", "Digital", 899, 899, 9)]),
    # Two vinyl pressings: the card shows the cheaper (1799), the CD is cheaper still.
    ("ROB", "Rock or Bust", [("ROB-CD", "CD", 999, 999, 8), ("ROB-LP", "Vinyl", 1999, 1999, 0),
                             ("ROB-LP2", "Vinyl", 1799, 1799, 7)]),
]


def make_albums(categories=()):
    """The ``ALBUMS`` (with their stock) and a product without variants, "Rock Plain" (PLAIN)."""
    made = {}
    for sku, title, variants in ALBUMS:
        product = make_product(title, sku=sku, categories=categories)
        product.variants = [Variant(sku=v, options={"format": f}, pricing=Pricing.from_prices(lst, retail))
                            for v, f, lst, retail, _units in variants]
        product.save()
        for v, _f, _lst, _retail, units in variants:
            Inventory.objects.ensure_stock([v], units)
        made[sku] = product
    made["PLAIN"] = make_product("Rock Plain", sku="PLAIN", categories=categories, list_cents=500)
    Inventory.objects.ensure_stock(["PLAIN"], 4)
    return made


@pytest.fixture
def music(make_tree, settings):
    settings.STOCK_LOW_THRESHOLD = 5
    tree = make_tree({"Music": {}})
    return make_albums([tree["Music"].pk])


def cards(html):
    """``{title: (link, price, was, type line, stock)}`` of a listing page's cards."""
    found = {}
    for card in re.findall(r'<li class="card">(.*?)</li>', html, re.S):
        def text(pattern):
            match = re.search(pattern, card, re.S)
            return " ".join(match.group(1).split()) if match else None

        price = re.search(r'<span class="price">\s*([^<\s]+)', card).group(1)
        found[text(r'<span class="title">([^<]*)</span>')] = (
            text(r'<a href="([^"]*)"').replace("&amp;", "&"), price,
            text(r'<s><span class="visually-hidden">was </span>([^<]*)</s>'),
            text(r'<span class="type">([^<]*)</span>'), text(r'<span class="stock [^"]*">([^<]*)</span>'))
    return found


VINYL_CARDS = {
    "Let There Be Rock": ("/p/LTBR/?variant=LTBR-LP", "$24.99", "$29.99", "Audio Album · Vinyl", "Only 1 left"),
    "Rock or Bust": ("/p/ROB/?variant=ROB-LP2", "$17.99", None, "Audio Album · Vinyl", "In stock"),
}
PLAIN_CARDS = {
    "Let There Be Rock": ("/p/LTBR/", "$8.99", None, "Audio Album", "In stock"),
    "Rock or Bust": ("/p/ROB/", "$9.99", None, "Audio Album", "In stock"),
    "Rock Plain": ("/p/PLAIN/", "$5.00", None, "Audio Album", "Only 4 left"),
}


def test_the_matching_variant_is_the_cheapest_holding_every_chosen_value():
    document = {"sku": "X", "variants": [
        {"sku": "X-LP", "options": {"format": "Vinyl", "colour": "black"}, "pricing": {"retail": 2000}},
        {"sku": "X-LP2", "options": {"format": "Vinyl", "colour": "red"}, "pricing": {"retail": 1500}},
        {"sku": "X-LP3", "options": {"format": "Vinyl", "colour": "blue"}, "pricing": {"retail": 1500}},
        {"sku": "X-CD", "options": {"format": "CD", "colour": "black"}, "pricing": {"retail": 900}}]}
    assert matching_variant(document, {"format": ("Vinyl",)})["sku"] == "X-LP2"  # the first of equals
    assert matching_variant(document, {"format": ("Vinyl", "CD")})["sku"] == "X-CD"
    assert matching_variant(document, {"format": ("Vinyl",), "colour": ("black",)})["sku"] == "X-LP"
    # The listing's filter matches each code on any variant; no one variant holds both: none.
    assert matching_variant(document, {"format": ("CD",), "colour": ("red",)}) is None
    assert matching_variant(document, {}) is None and matching_variant({"sku": "P"}, {"format": ("CD",)}) is None


def test_a_card_list_keys_its_cards_by_the_variant_each_shows():
    documents = [{"sku": "X", "available": 9, "variants": [
        {"sku": "X-CD", "options": {"format": "CD"}, "pricing": {"retail": 900}, "available": 8},
        {"sku": "X-LP", "options": {"format": "Vinyl"}, "pricing": {"retail": 2000}, "available": 1}]}]
    assert CardList(documents, dict).signature() == (("X", 9, None, None),)
    filtered = CardList(documents, dict, {"format": ("Vinyl",)})
    assert filtered.signature() == (("X", 1, None, "X-LP"),)
    assert filtered[0:1].signature() == filtered.signature()  # a slice keeps the choice


def test_a_vinyl_filtered_category_page_shows_each_cards_vinyl(music):
    reader = Client()
    assert cards(reader.get("/c/music/").content.decode()) == PLAIN_CARDS
    vinyl = reader.get("/c/music/?format=Vinyl")
    assert vinyl.status_code == 200
    assert cards(vinyl.content.decode()) == VINYL_CARDS
    # Vinyl or CD: the cheapest of those, each card its own.
    both = cards(reader.get("/c/music/?format=Vinyl&format=CD").content.decode())
    assert both["Let There Be Rock"][:2] == ("/p/LTBR/?variant=LTBR-CD", "$12.99")
    assert both["Rock or Bust"][:2] == ("/p/ROB/?variant=ROB-CD", "$9.99")
    # Another facet than a variant attribute: the cards stay as unfiltered.
    assert cards(reader.get("/c/music/?genre=Rock").content.decode()) == PLAIN_CARDS
    # The link opens the product page with that variant chosen.
    page = reader.get(VINYL_CARDS["Let There Be Rock"][0]).content.decode()
    assert re.search(r'value="LTBR-LP"[^>]* checked', page)


def test_a_filtered_page_never_shows_the_unfiltered_pages_cards(make_tree, settings):
    """A category whose every product has vinyl: both pages read the same documents, with the
    same stock labels, so only the variant shown tells their cards' HTML apart."""
    settings.STOCK_LOW_THRESHOLD = 0
    tree = make_tree({"Solo": {}})
    product = make_product("Let There Be Rock", sku="LTBR", categories=[tree["Solo"].pk])
    product.variants = [Variant(sku="LTBR-CD", options={"format": "CD"}, pricing=Pricing.from_prices(1299, 1299)),
                        Variant(sku="LTBR-LP", options={"format": "Vinyl"}, pricing=Pricing.from_prices(2499, 2499))]
    product.save()
    Inventory.objects.ensure_stock(["LTBR-CD", "LTBR-LP"], 6)
    reader = Client()
    for _ in range(2):  # cold, then warm: each page its own cards
        assert cards(reader.get("/c/solo/").content.decode())["Let There Be Rock"][:2] == ("/p/LTBR/", "$12.99")
        assert cards(reader.get("/c/solo/?format=Vinyl").content.decode())["Let There Be Rock"][:2] == (
            "/p/LTBR/?variant=LTBR-LP", "$24.99")
    # A stock change of the vinyl shows on the filtered page's card (its stock, not the sum).
    Inventory.objects.set_stock("LTBR-LP", 0)
    assert cards(reader.get("/c/solo/?format=Vinyl").content.decode())["Let There Be Rock"][4] == "Sold out"
    assert cards(reader.get("/c/solo/").content.decode())["Let There Be Rock"][4] == "In stock"


def test_a_vinyl_filtered_search_shows_each_cards_vinyl(music):
    reader = Client()
    found = cards(reader.get("/search/?q=rock&format=Vinyl").content.decode())
    assert found == VINYL_CARDS
    assert cards(reader.get("/search/?q=rock&format=Vinyl&sort=price").content.decode()) == VINYL_CARDS
    assert cards(reader.get("/search/?q=rock").content.decode()) == PLAIN_CARDS


@pytest.mark.parametrize("url", ["/c/music/?format=Vinyl", "/search/?q=rock&format=Vinyl",
                                 "/search/?q=rock&format=Vinyl&sort=price"])
def test_a_warm_filtered_listing_costs_the_version_and_the_stock(music, url):
    """As before the cards showed their variant (``tests/catalog/test_facets.py``): the variant
    is picked from the documents and stock the page reads anyway."""
    reader = Client()
    reader.get(url)
    with count_operations() as ops:
        assert reader.get(url).status_code == 200
    assert ops.operations == [("catalog_versions", "find"), ("inventory", "find")]


# -- a variant's own image ----------------------------------------------------------------


def picture(name, colour):
    """An upload of a 400x400 PNG of ``colour``."""
    buffer = io.BytesIO()
    Image.new("RGB", (400, 400), colour).save(buffer, "PNG")
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/png")


def variant_rows(*rows, stored=0):
    """The variants formset as posted: ``rows`` of ``(sku, options, list, retail, extra fields)``."""
    data = {"variants-TOTAL_FORMS": str(len(rows)), "variants-INITIAL_FORMS": str(stored),
            "variants-MIN_NUM_FORMS": "0", "variants-MAX_NUM_FORMS": "1000"}
    for i, (sku, options, list_price, retail_price, extra) in enumerate(rows):
        data.update({f"variants-{i}-sku": sku, f"variants-{i}-options": options,
                     f"variants-{i}-list_price": list_price, f"variants-{i}-retail_price": retail_price,
                     **{f"variants-{i}-{name}": value for name, value in extra.items()}})
    return data


def covers(html):
    """``{data-cover value: (hidden, img src)}`` of the product page's covers."""
    return {m.group(1): (m.group(2) == " hidden", re.search(r'<img [^>]*src="([^"]+)"', m.group(3)).group(1))
            for m in re.finditer(r'<div data-cover="([^"]*)"( hidden)?>(.*?)</div>', html, re.S)}


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_a_variant_image_uploaded_in_the_admin_is_kept_replaced_and_cleared(admin_client, media):
    assert admin_client.post("/admin/catalog/product/add/", {**album_data(), **variant_rows(
        ("NEW-1-CD", "format: CD", "12.99", "11.99", {}),
        ("NEW-1-LP", "format: Vinyl", "24.99", "24.99", {"image": picture("vinyl.png", (20, 20, 20))}))}
    ).status_code == 302
    product = Product.objects.get_by_sku("NEW-1")
    cd, lp = product.variants
    assert cd.image == "" and lp.image.startswith("products/vinyl") and default_storage.exists(lp.image)
    stored = Product.objects.collection.find_one({"sku": "NEW-1"})["variants"][1]
    assert stored["image"] == lp.image  # on the variant's subdocument
    url = f"/admin/catalog/product/{product.pk}/change/"
    form = admin_client.get(url).content.decode()
    assert lp.image in form and 'name="variants-1-image-clear"' in form

    # Posted again without a file: kept (the SKU's price changed).
    rows = [("NEW-1-CD", "format: CD", "12.99", "11.99", {}), ("NEW-1-LP", "format: Vinyl", "24.99", "19.99", {})]
    assert admin_client.post(url, {**album_data(), **variant_rows(*rows, stored=2)}).status_code == 302
    assert [v.image for v in Product.objects.get_by_sku("NEW-1").variants] == ["", lp.image]
    # A new file replaces it; the clear box removes it.
    rows[1] = (*rows[1][:4], {"image": picture("red.png", (200, 30, 30))})
    assert admin_client.post(url, {**album_data(), **variant_rows(*rows, stored=2)}).status_code == 302
    replaced = Product.objects.get_by_sku("NEW-1").variants[1].image
    assert replaced.startswith("products/red") and default_storage.exists(replaced)
    rows[1] = (*rows[1][:4], {"image-clear": "on"})
    assert admin_client.post(url, {**album_data(), **variant_rows(*rows, stored=2)}).status_code == 302
    assert [v.image for v in Product.objects.get_by_sku("NEW-1").variants] == ["", ""]


def test_a_bad_variant_image_is_a_form_error_and_writes_nothing(admin_client, media):
    response = admin_client.post("/admin/catalog/product/add/", {**album_data(), **variant_rows(
        ("NEW-1-LP", "format: Vinyl", "24.99", "24.99",
         {"image": SimpleUploadedFile("notes.png", b"not an image", content_type="image/png")}))})
    assert response.status_code == 200 and "Upload a valid image" in response.content.decode()
    tiny = SimpleUploadedFile("tiny.png", _png((10, 10)), content_type="image/png")
    response = admin_client.post("/admin/catalog/product/add/", {**album_data(), **variant_rows(
        ("NEW-1-LP", "format: Vinyl", "24.99", "24.99", {"image": tiny}))})
    assert response.status_code == 200 and "each side must be" in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()
    assert not default_storage.exists("products") or default_storage.listdir("products")[1] == []


def _png(size):
    buffer = io.BytesIO()
    Image.new("RGB", size, (0, 0, 0)).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def vinyl_with_its_image(media):
    """LTBR (CD, vinyl, download) whose vinyl has its own image."""
    product = make_albums()["LTBR"]
    path = default_storage.save("products/ltbr-vinyl.png", ContentFile(_png((400, 400))))
    product.variants[1].image = path
    product.save()
    return product


def test_the_product_page_shows_the_chosen_variants_own_image(client, vinyl_with_its_image):
    cd = covers(client.get("/p/LTBR/").content.decode())  # the CD chosen: the product's cover
    assert set(cd) == {"", "LTBR-LP"}
    assert cd[""][0] is False and cd["LTBR-LP"][0] is True
    assert cd[""][1].startswith("data:image/svg+xml") and "/products/ltbr-vinyl" in cd["LTBR-LP"][1]
    vinyl_page = client.get("/p/LTBR/?variant=LTBR-LP").content.decode()
    vinyl = covers(vinyl_page)  # asked after the CD's page: its own cached heading
    assert vinyl[""][0] is True and vinyl["LTBR-LP"][0] is False
    assert 'alt="Cover of Let There Be Rock — Vinyl"' in vinyl_page
    assert covers(client.get("/p/LTBR/?variant=LTBR-DL").content.decode())[""][0] is False  # no image of its own
    # The large size it links to is served.
    large = re.search(r'<div data-cover="LTBR-LP"><a href="([^"]+)"', vinyl_page).group(1)
    assert client.get(large).status_code == 200


def test_a_product_without_variant_images_has_one_cover(client, media):
    make_albums()
    html = client.get("/p/LTBR/?variant=LTBR-LP").content.decode()
    assert "data-cover" not in html and html.count('<img class="cover') == 1
    assert chosen_cover([], "X") == "" and chosen_cover([{"sku": "X", "image": "p.png"}], "X") == "X"


def test_a_reload_of_the_products_keeps_the_variants_images(vinyl_with_its_image):
    fresh = Product(sku="LTBR", type="Audio Album", title="Let There Be Rock", categories=[],
                    details=vinyl_with_its_image.details, pricing=Pricing.from_prices(1299, 1299),
                    variants=[Variant(sku=v.sku, options=v.options, pricing=v.pricing)
                              for v in vinyl_with_its_image.variants])
    Product.writes.sync([fresh])
    assert [v.image for v in Product.objects.get_by_sku("LTBR").variants] == [
        "", vinyl_with_its_image.variants[1].image, ""]


def line_covers(html):
    """``{line title: its cover's img src}`` of the cart page's lines."""
    return {m.group(2): m.group(1) for m in re.finditer(
        r'<span class="cart-item"><img [^>]*src="([^"]+)"[^>]*><a [^>]*>([^<]+)</a>', html)}


def test_the_cart_and_the_checkout_show_a_variants_own_image(client, vinyl_with_its_image):
    for sku in ("LTBR-LP", "LTBR-CD"):
        assert client.post("/cart/add/", {"sku": sku, "qty": 1}).status_code == 302
    with count_operations() as ops:
        page = client.get("/cart/").content.decode()
    shown = line_covers(page)
    assert "/products/ltbr-vinyl" in shown["Let There Be Rock — Vinyl"]  # the vinyl's own picture
    assert shown["Let There Be Rock — CD"].startswith("data:image/svg+xml")  # the product's (generated) cover
    assert 'alt="Cover of Let There Be Rock — Vinyl"' in page
    # The covers: one read for every line (the other read of products is the discounts' facts).
    assert ops.operations.count(("products", "find")) == 2

    summary = client.get("/checkout/").content.decode()
    summary = summary[summary.index('<ul class="summary-lines">'):summary.index("</ul>", summary.index("summary-lines"))]
    covers = re.findall(r'<span class="summary-cover"><img [^>]*src="([^"]+)"', summary)
    assert len(covers) == 2 and "/products/ltbr-vinyl" in covers[0] and covers[1].startswith("data:image/svg+xml")
    assert summary.count('<span class="summary-title">Let There Be Rock</span>') == 2  # the title once, then
    assert '<span class="summary-variant">Vinyl</span>' in summary  # the variant's options
