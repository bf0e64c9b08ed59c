"""The Chinook demo catalog (``data/chinook``, MIT licence) as the shop's categories and products.

Chinook is a sample music store: 25 genres, 275 artists, 347 albums, 3,503
tracks. Here genres become a category tree (``GENRE_TREE``), each album a
product: an ``Audio Album``, or a ``TV Season`` when its tracks are videos.

* SKU: ``CHK-`` and the album id on four digits (``CHK-0001``), stable.
* Pricing, in cents: ``list`` is the sum of the track prices; ``retail`` is
  80% of it, rounded down to a price ending in 99 cents, unless that is not
  lower than the list price.
* Variants: the albums of ``on_cd_and_vinyl`` (every tenth from album 3, videos aside: 34) are sold on CD
  (``CHK-0003-CD``, the album's prices) and on vinyl (``CHK-0003-LP``, twice the list
  price): each variant with its own SKU and stock, the album's own SKU naming its page
  (``catalog/products/variants.py``). The others sell their own SKU.
* ``details.issue_date``: Chinook has no release dates; the shop uses the
  date of the first invoice that sold one of the album's tracks (UTC), and
  ``FIRST_SALE_FALLBACK`` for the albums never sold.
"""

import datetime
import sqlite3
from collections import Counter

from core import money

from catalog.models import Dimensions, Pricing, Product, Shipping, Variant

#: The product types the demo catalog loads (created as data by migration catalog 0010).
AUDIO_ALBUM = "Audio Album"
TV_SEASON = "TV Season"

# (category name, parent name, Chinook genres listed in it): parents come first.
GENRE_TREE = [
    ("Music", None, []),
    ("Rock", "Music", ["Rock"]),
    ("Metal", "Rock", ["Metal"]),
    ("Heavy Metal", "Metal", ["Heavy Metal"]),
    ("Alternative & Punk", "Rock", ["Alternative & Punk"]),
    ("Alternative", "Alternative & Punk", ["Alternative"]),
    ("Rock And Roll", "Rock", ["Rock And Roll"]),
    ("Jazz & Blues", "Music", []),
    ("Jazz", "Jazz & Blues", ["Jazz"]),
    ("Blues", "Jazz & Blues", ["Blues"]),
    ("Latin & World", "Music", []),
    ("Latin", "Latin & World", ["Latin"]),
    ("Bossa Nova", "Latin", ["Bossa Nova"]),
    ("Reggae", "Latin & World", ["Reggae"]),
    ("World", "Latin & World", ["World"]),
    ("Pop", "Music", ["Pop"]),
    ("Easy Listening", "Pop", ["Easy Listening"]),
    ("Electronica & Dance", "Pop", ["Electronica/Dance"]),
    ("R&B & Hip Hop", "Music", []),
    ("R&B & Soul", "R&B & Hip Hop", ["R&B/Soul"]),
    ("Hip Hop & Rap", "R&B & Hip Hop", ["Hip Hop/Rap"]),
    ("Classical", "Music", ["Classical"]),
    ("Opera", "Classical", ["Opera"]),
    ("Soundtrack", "Music", ["Soundtrack"]),
    ("Video", None, []),
    ("TV Shows", "Video", ["TV Shows"]),
    ("Drama", "TV Shows", ["Drama"]),
    ("Comedy", "TV Shows", ["Comedy"]),
    ("Sci-Fi & Fantasy", "Video", ["Sci Fi & Fantasy"]),
    ("Science Fiction", "Sci-Fi & Fantasy", ["Science Fiction"]),
]

VIDEO_MEDIA_TYPE = "Protected MPEG-4 video file"
FIRST_SALE_FALLBACK = datetime.datetime(2020, 12, 31, tzinfo=datetime.UTC)
CD = Shipping(weight=110, dimensions=Dimensions(width=142, height=125, depth=10))
DVD_SET = Shipping(weight=280, dimensions=Dimensions(width=190, height=135, depth=30))


def sku_for_album(album_id):
    """The stable SKU of Chinook album ``album_id`` (an int): ``CHK-0001``."""
    return f"CHK-{int(album_id):04d}"


def on_cd_and_vinyl(album_id):
    """Whether Chinook album ``album_id`` (an int) is sold as CD and vinyl variants: every
    tenth album from album 3, videos aside (34 of the 347)."""
    return int(album_id) % 10 == 3


def format_variants(sku, pricing):
    """The CD and vinyl variants of the album ``sku`` priced ``pricing`` (a ``Pricing``): the CD
    at the album's prices, the vinyl at twice its list price (retail by ``retail_price``)."""
    vinyl_list = pricing.list * 2
    return [
        Variant(sku=f"{sku}-CD", options={"format": "CD"},
                pricing=Pricing.from_prices(pricing.list, pricing.retail)),
        Variant(sku=f"{sku}-LP", options={"format": "Vinyl"},
                pricing=Pricing.from_prices(vinyl_list, retail_price(vinyl_list))),
    ]


def retail_price(list_cents):
    """80% of ``list_cents``, rounded down to ``x.99``; the list price when that is not lower."""
    discounted = (list_cents * 80 // 100) // 100 * 100 + 99
    return discounted if discounted < list_cents else list_cents


def read_albums(path):
    """Read the Chinook SQLite file at ``path``: a list of dicts, one per album, by album id.

    Each dict: ``album_id, title, artist, tracks`` (dicts with ``number,
    title, composer, duration`` ms, ``price`` cents, ``genre``, ``media``)
    and ``first_sale`` (an aware UTC datetime or None).
    Raises ``sqlite3.Error`` when the file is not a Chinook database.
    """
    rows, first_sales = query(
        path,
        """
            SELECT al.AlbumId, al.Title, ar.Name, t.TrackId, t.Name, t.Composer,
                   t.Milliseconds, t.UnitPrice, g.Name, m.Name
            FROM Album al
            JOIN Artist ar ON ar.ArtistId = al.ArtistId
            JOIN Track t ON t.AlbumId = al.AlbumId
            LEFT JOIN Genre g ON g.GenreId = t.GenreId
            LEFT JOIN MediaType m ON m.MediaTypeId = t.MediaTypeId
            ORDER BY al.AlbumId, t.TrackId
        """,
        """
            SELECT t.AlbumId, MIN(i.InvoiceDate)
            FROM InvoiceLine il
            JOIN Invoice i ON i.InvoiceId = il.InvoiceId
            JOIN Track t ON t.TrackId = il.TrackId
            GROUP BY t.AlbumId
        """,
    )
    first_sales = dict(first_sales)
    albums = {}
    for album_id, title, artist, _track_id, name, composer, ms, price, genre, media in rows:
        album = albums.setdefault(
            album_id,
            {"album_id": album_id, "title": title, "artist": artist, "tracks": [],
             "first_sale": parse_date(first_sales.get(album_id))},
        )
        album["tracks"].append({
            "number": len(album["tracks"]) + 1,
            "title": name,
            "composer": composer or "",
            "duration": int(ms),
            "price": money.cents(price),
            "genre": genre,
            "media": media,
        })
    return [albums[k] for k in sorted(albums)]


def query(path, *statements):
    """Run each SQL statement on the Chinook SQLite file at ``path``, opened read-only.

    Returns one list of row tuples per statement, in order. Raises
    ``sqlite3.Error`` when the file is not a Chinook database.
    """
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [connection.execute(statement).fetchall() for statement in statements]
    finally:
        connection.close()


def parse_date(text):
    """A Chinook date (``"2009-01-01 00:00:00"``, UTC) as an aware UTC datetime; None for none."""
    if not text:
        return None
    return datetime.datetime.fromisoformat(text).replace(tzinfo=datetime.UTC)


def genre_categories():
    """``{Chinook genre name: category name}`` from ``GENRE_TREE``."""
    return {genre: name for name, _parent, genres in GENRE_TREE for genre in genres}


def album_product(album, category_ids):
    """The Product for one album dict of ``read_albums``.

    ``category_ids`` maps a category name to its ObjectId; the product is
    listed in the categories of its tracks' genres, most tracks first.
    """
    genres = [g for g, _ in Counter(t["genre"] for t in album["tracks"] if t["genre"]).most_common()]
    by_genre = genre_categories()
    categories = []
    for genre in genres:
        category_id = category_ids[by_genre[genre]]
        if category_id not in categories:
            categories.append(category_id)
    tracks = [
        {"number": t["number"], "title": t["title"], "composer": t["composer"],
         "duration": t["duration"], "price": t["price"]}
        for t in album["tracks"]
    ]
    list_cents = sum(t["price"] for t in tracks)
    is_video = all(t["media"] == VIDEO_MEDIA_TYPE for t in album["tracks"])
    issue_date = album["first_sale"] or FIRST_SALE_FALLBACK
    count = len(tracks)
    if is_video:
        kind, shipping = TV_SEASON, DVD_SET
        description = f"{album['title']}: {count} episode{'s' * (count != 1)} from {album['artist']}."
    else:
        kind, shipping = AUDIO_ALBUM, CD
        description = f"{album['title']} by {album['artist']}: {count} track{'s' * (count != 1)}."
    sku = sku_for_album(album["album_id"])
    pricing = Pricing.from_prices(list_cents, retail_price(list_cents))
    variants = format_variants(sku, pricing) if on_cd_and_vinyl(album["album_id"]) and not is_video else []
    return Product(
        sku=sku,
        type=kind,
        title=album["title"],
        description=description,
        categories=categories,
        shipping=Shipping(weight=shipping.weight, dimensions=Dimensions(
            width=shipping.dimensions.width, height=shipping.dimensions.height,
            depth=shipping.dimensions.depth)),
        pricing=pricing,
        details={"artist": album["artist"], "genre": genres, "issue_date": issue_date, "tracks": tracks},
        variants=variants,
    )

