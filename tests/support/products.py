"""``make_product()``: a product saved through the ORM, with sensible defaults, for tests."""

import datetime
import itertools

from catalog.models import Pricing, Product

_numbers = itertools.count(1)


def track(number, title, duration=180000, price=99, composer=""):
    """A track of an album's ``details.tracks``: duration in milliseconds, price in cents."""
    return {"number": number, "title": title, "composer": composer, "duration": duration, "price": price}


def make_product(title="Album", *, type="Audio Album", artist="Artist", genre=("Rock",),
                 year=2020, list_cents=1000, retail_cents=None, categories=(), tracks=(),
                 actor=(), director=(), description="", sku=None):
    """Save and return a Product; ``year`` gives ``details.issue_date`` (1 January, UTC)."""
    issue_date = datetime.datetime(year, 1, 1, tzinfo=datetime.UTC) if year else None
    if type == "Film":
        details = {"actor": list(actor), "director": list(director), "genre": list(genre),
                   "issue_date": issue_date}
    else:
        details = {"artist": artist, "genre": list(genre), "issue_date": issue_date,
                   "tracks": [track(i, t) for i, t in enumerate(tracks, 1)]}
    product = Product(
        sku=sku or f"T-{next(_numbers):05d}", type=type, title=title, description=description,
        categories=list(categories), details=details,
        pricing=Pricing.from_prices(list_cents, list_cents if retail_cents is None else retail_cents),
    )
    product.save()
    return product


def set_price(sku, retail_cents, list_cents):
    """Save the product ``sku`` with a new retail price (``Product.save``, the admin's write
    path): ``retail_cents`` of ``list_cents``."""
    product = Product.objects.get(sku=sku)
    product.pricing = Pricing.from_prices(list_cents, retail_cents)
    product.save()


def forty_rock_albums(make_tree):
    """Music > Rock with 40 albums ``R-00`` to ``R-39`` at 1.00 to 40.00 (list price 50.00), their
    titles and years out of the price's order, 10 of each in stock; returns the Rock category.
    ``make_tree``: the fixture of that name."""
    from inventory.models import Inventory

    tree = make_tree({"Music": {"Rock": {}}})
    for n in range(40):
        make_product(f"Album {(n * 7) % 40:02d}", list_cents=5000, retail_cents=100 * (n + 1),
                     year=1960 + (n * 13) % 40, categories=[tree["Rock"].pk], sku=f"R-{n:02d}")
    Inventory.objects.ensure_stock([f"R-{n:02d}" for n in range(40)], 10)
    return tree["Rock"]
