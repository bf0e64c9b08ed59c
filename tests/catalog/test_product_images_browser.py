"""A product's images in a real browser (headless Chromium): its page with a cover and two
thumbnails fits a phone and a laptop and passes axe-core (no serious or critical
violation), every image loads at the size its attributes give (or
twice it), square, and a thumbnail links to
the large size of its image (no JavaScript needed)."""

import io

from django.core.files.base import ContentFile
from PIL import Image

from catalog.models import ProductImage
from tests.catalog.test_storefront_browser import axe_source, check_page  # noqa: F401 (a fixture)
from tests.support.products import make_product


def stored_picture(name, colour):
    """A 600x600 PNG file of ``colour`` (not yet stored)."""
    buffer = io.BytesIO()
    Image.new("RGB", (600, 600), colour).save(buffer, "PNG")
    return ContentFile(buffer.getvalue(), name=name)


def test_the_product_page_gallery_in_a_browser(live_server, browser, axe_source):  # noqa: F811
    product = make_product("Gallery Album", artist="The Pictures")
    for position, (name, colour, alt) in enumerate([("red.png", (200, 30, 30), "Red front"),
                                                    ("blue.png", (20, 90, 160), "Blue back"),
                                                    ("green.png", (30, 140, 60), "")]):
        ProductImage.objects.create(product=product, image=stored_picture(name, colour), alt=alt,
                                    position=position)
    ProductImage.objects.sync(product.pk)

    browser.get(f"{live_server.url}/p/{product.sku}/")
    problems = []
    check_page(browser, axe_source, "product-gallery", problems)
    assert problems == []
    images = browser.find_elements("css selector", ".product-cover img")
    assert [i.get_attribute("alt") for i in images] == ["Red front", "Blue back", "Gallery Album, image 3"]
    for image in images:
        browser.execute_script("arguments[0].scrollIntoView()", image)
        size = browser.execute_script(
            "const i = arguments[0]; return i.decode().then(() => [i.naturalWidth, i.width, i.height])"
            ".catch(e => String(e));", image)
        declared = int(image.get_dom_attribute("width"))
        # The file is the size the attributes give (or twice it: srcset), shown square.
        assert size[0] in (declared, declared * 2) and size[1] == size[2] > 0, size

    link = browser.find_elements("css selector", ".gallery a")[0]
    browser.get(link.get_attribute("href"))
    natural = browser.execute_script("const i = document.querySelector('img'); return [i.naturalWidth, i.naturalHeight]")
    assert natural == [600, 600]  # the large size: the whole picture, never enlarged
