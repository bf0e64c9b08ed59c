"""A generated catalog for trying the shop at scale and for the benchmarks
(``manage.py populatedb --products N``, ``bench/catalog_pages.py``).

The tree has the shape the README's performance figures use: 10 top
categories (``Top 0`` ... ``Top 9``, slugs ``top-0`` ...), 9 middle ones under
each (``Mid 0-0`` ...), and leaves dealt to the middle categories in turn
(``Leaf 0-0-0`` ...) up to ``categories`` in all (5,000: 4,900 leaves).
Products are albums (SKUs ``GEN-000000`` ...) in one leaf each, with an
artist, a genre (their top category's), an issue date, 8 to 14 tracks and
prices in cents (list = the tracks' sum, retail 70 to 100 % of it); each title
has two words out of 2,000 made-up ones (a search word finds about 1 product
in 1,000) and its number. Every ``VARIANT_EVERY``-th album is sold as CD and vinyl variants
(``GEN-000007-CD``, ``GEN-000007-LP``: ``chinook.format_variants``). Each SKU sold gets
``stock`` units.

Everything is written through the managers (``Category.writes.create_many``,
``Product.writes.sync``, ``Inventory.objects.ensure_stock``), in batches,
so every invariant and the catalog's version hold as after any other import.
The same ``seed`` makes the same catalog. (A later ``--carts`` or
``--events`` option of ``populatedb`` would add its own generator module to
its own app.)
"""

import datetime
import random

from bson import ObjectId

from catalog.transfer.chinook import AUDIO_ALBUM, format_variants
from catalog.listings.facets import facet_fields
from catalog.store.writes import catalog_reset
from catalog.models import Category, ListingCount, OrderCount, Pricing, Product, SearchSummary
from inventory.models import Inventory

#: 2,000 made-up words ("bakado", "ketiru", ...) for the generated titles.
WORDS = sorted({a + b + c for a in ("ba", "ke", "ti", "ro", "mu", "sa", "lo", "ne", "fi", "da")
                for b in ("ka", "do", "ri", "me", "lu", "po", "ta", "ve", "si", "no")
                for c in ("do", "ru", "an", "el", "os", "ix", "um", "ar", "en", "op",
                          "ra", "li", "ko", "pe", "mi", "tu", "za", "go", "he", "wy")})
GENRES = ["Rock", "Jazz", "Metal", "Alternative", "Latin", "Blues", "Classical", "Pop",
          "Reggae", "Electronica"]
TOPS, MIDDLES_PER_TOP = 10, 9
#: Every this many albums, one (album 7, 27, 47 ...) is sold as CD and vinyl variants.
VARIANT_EVERY = 20
#: Products written per ``Product.writes.sync`` call.
BATCH = 1000
#: The categories listing at least this many products get their facet counts kept at the end
#: (the others are counted by their first cold request: a few milliseconds).
KEEP_FACETS_FROM = 500


def category_nodes(categories=5000):
    """The generated tree as ``create_many`` nodes ``[{_id, name, parent, taxonomy_id}]``,
    parents first, and the leaves' ids (a list). ``categories``: at least 100 (10 top,
    90 middle); the rest are leaves. Raises ValueError below 101."""
    if categories < TOPS * (MIDDLES_PER_TOP + 1) + 1:
        raise ValueError("A generated catalog needs at least 101 categories.")
    nodes, middles, leaves = [], [], []

    def add(name, parent):
        node = {"_id": ObjectId(), "name": name, "parent": parent, "taxonomy_id": None}
        nodes.append(node)
        return node["_id"]

    for t in range(TOPS):
        top = add(f"Top {t}", None)
        middles += [(f"{t}-{m}", add(f"Mid {t}-{m}", top)) for m in range(MIDDLES_PER_TOP)]
    leaf = 0
    while len(nodes) < categories:
        label, middle = middles[leaf % len(middles)]
        leaves.append(add(f"Leaf {label}-{leaf // len(middles)}", middle))
        leaf += 1
    return nodes, leaves


def make_product(number, leaf_id, genre, rng):
    """The generated album ``number`` (an unsaved Product) in the category ``leaf_id``."""
    title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {number}"
    tracks = [{"number": i, "title": f"{rng.choice(WORDS).title()} {rng.choice(WORDS)}",
               "composer": rng.choice(WORDS).title(), "duration": rng.randrange(90_000, 420_000),
               "price": 99}
              for i in range(1, rng.randrange(9, 16))]
    list_cents = sum(t["price"] for t in tracks)
    retail_cents = list_cents * rng.randrange(70, 101) // 100
    issued = datetime.datetime(rng.randrange(1960, 2025), rng.randrange(1, 13), rng.randrange(1, 29),
                               tzinfo=datetime.UTC)
    sku, pricing = f"GEN-{number:06d}", Pricing.from_prices(list_cents, retail_cents)
    return Product(
        sku=sku, type=AUDIO_ALBUM, title=title,
        variants=format_variants(sku, pricing) if number % VARIANT_EVERY == 7 else [],
        description=f"A generated album by {title.split()[0]} and the {title.split()[1]}s.",
        categories=[leaf_id], pricing=pricing,
        details={"artist": f"The {rng.choice(WORDS).title()}s", "genre": [genre],
                 "issue_date": issued, "tracks": tracks},
    )


def populate(products, categories=5000, stock=20, seed=7, progress=None):
    """Write a generated catalog into an empty one: the tree, then ``products`` albums with
    ``stock`` units each, in batches of ``BATCH`` products.

    The batches are written without marking the categories' kept counts (the
    catalog is empty: it has none) nor bumping versions; at the end every
    category is counted once (``ListingCount.objects.recount_all``: one pass over
    every product) and along its sorts by price and title (``OrderCount.objects.recount_all``:
    one more pass), the epoch is bumped once (``writes.catalog_reset``: every cached
    read), then the facet counts of the categories listing at least ``KEEP_FACETS_FROM`` products are kept
    (``FacetManager.keep_facet_counts``: one read of each one's products), the deals'
    counts per saving (``ListingManager.keep_savings_counts``: one read of the deals), and
    the summary of the search of every word at least ``search_summary.KEEP_FROM`` products
    hold (``SearchSummary.objects.keep_words``: two passes over the products), so that no
    shopper's first request counts a large category, the deals or a one-word search.
    ``progress``: called with the number of products written after each batch
    (a progress bar's ``update``), or None. Returns ``(categories created,
    products created)``. Raises ValueError for a negative ``products`` or
    ``stock``, or fewer than 101 ``categories``. The caller checks that the
    catalog is empty (``populatedb`` refuses otherwise).
    """
    if products < 0 or stock < 0:
        raise ValueError("The numbers of products and units cannot be negative.")
    rng = random.Random(seed)
    nodes, leaves = category_nodes(categories)
    Category.writes.create_many(nodes)
    genre_of = {}
    for node in nodes:  # each leaf's genre: its top category's
        parent = node["parent"]
        genre_of[node["_id"]] = GENRES[int(node["name"].split()[1][0])] if parent is None \
            else genre_of[parent]
    for start in range(0, products, BATCH):
        batch = []
        for number in range(start, min(start + BATCH, products)):
            leaf = rng.choice(leaves)
            batch.append(make_product(number, leaf, genre_of[leaf], rng))
        Product.writes.sync(batch, recount=False, bump=False)
        Inventory.objects.ensure_stock([sku for p in batch for sku in p.sellable_skus], stock)
        if progress is not None:
            progress(len(batch))
    listed = ListingCount.objects.recount_all()  # once, not per batch: every product once
    OrderCount.objects.recount_all()  # the pages by price and title: one more pass
    catalog_reset()  # the versions: every cached read, once, not thousands a batch
    Product.facets.keep_facet_counts([i for i, n in sorted(listed.items()) if n >= KEEP_FACETS_FROM],
                                      facet_fields())
    Product.listings.keep_savings_counts()  # the deals' counts per saving (one pass over the deals)
    SearchSummary.objects.keep_words(facet_fields())  # every common word's search (two passes)
    return len(nodes), products
