"""Helpers of the admin tests: a product change list's SKUs, a complete product add form."""

import re

def listed_skus(response):
    """The SKUs of the changelist's rows, in order."""
    return re.findall(r'<th class="field-sku"><a [^>]*>([^<]*)</a>', response.content.decode())


def album_data(**changes):
    """A complete add form for an album, with ``changes`` applied (None removes a field)."""
    data = {
        "sku": "NEW-1", "type": "Audio Album", "title": "Fresh Album", "description": "Brand new.",
        "categories": [], "list_price": "12.50", "retail_price": "9.99",
        "weight": "120", "width": "142", "height": "125", "depth": "10",
        "details_artist": "The Testers", "details_genre": "Rock\nMetal", "details_issue_date": "2024-03-01 10:00",
        "details_format": "", "details_tracks": "",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}



def image_rows(*rows, initial=0):
    """The product form's image inline (``catalog/admin/gallery.py``) as posted: ``rows`` are
    dicts of a row's fields (``image``, ``alt``, ``position``, ``id``, ``DELETE``), the first
    ``initial`` of them stored images."""
    data = {"product_images-TOTAL_FORMS": str(len(rows)), "product_images-INITIAL_FORMS": str(initial),
            "product_images-MIN_NUM_FORMS": "0", "product_images-MAX_NUM_FORMS": "1000"}
    for index, row in enumerate(rows):
        data.update({f"product_images-{index}-{name}": value for name, value in row.items()})
    return data
