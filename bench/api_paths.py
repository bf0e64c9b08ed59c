"""Benchmark: reading a subdocument by path (FoundationDB "Hierarchical Documents" recipe) against reading the whole document.

Stores an album of ``--tracks`` tracks (5,000 by default) and measures, for
a few paths:

* the API (``GET /api/v1/products/<sku>/<path>`` through Django's test
  client): requests/s, mean ms, bytes answered, round trips;
* the manager alone: ``Product.objects.read_by_path`` (the path evaluated on
  the server, one aggregation) against ``find_one`` of the whole document
  cut in Python (what the API never does), in reads/s, with the bytes that
  came back from the database.

Runs on the local server, or on the server ``MONGODB_URI`` names, in the
database ``MONGODB_NAME`` (default ``shop_bench``: the bench replaces its
products). Usage::

    python bench/api_paths.py [--tracks 5000] [--seconds 3]
"""

import argparse
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

import bson  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.models import Pricing, Product  # noqa: E402
from catalog.store.subdocuments import path_pipeline  # noqa: E402
from core import mongo  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402

SKU = "BENCH-LONG"
PATHS = ["", "pricing", "details/tracks/3", "details/tracks/3/title", "details/tracks/4999/title"]


def repeat(function, seconds):
    """Call ``function`` for ``seconds``: (calls/s, mean ms)."""
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        function()
        count += 1
    elapsed = time.perf_counter() - start
    return count / elapsed, 1000 * elapsed / count


def cut_in_python(steps):
    """The whole document read, then cut in Python: (value, bytes read)."""
    value = Product.objects.read_collection.find_one({"sku": SKU}, {"title_lower": 0})
    size = len(bson.encode(value))
    for step in steps:
        value = value[int(step)] if isinstance(value, list) else value[step]
    return value, size


def read_by_path(steps):
    """``read_by_path``, with the bytes the aggregation returned."""
    collection = Product.objects.read_collection
    pipeline = path_pipeline({"sku": SKU}, steps, hidden=("title_lower",))
    documents = list(collection.aggregate(pipeline))
    return sum(len(bson.encode(d)) for d in documents)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracks", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    Product.writes.delete_all()
    Product(
        sku=SKU, type="Audio Album", title="A very long album",
        pricing=Pricing.from_prices(99 * args.tracks, 80 * args.tracks),
        details={"artist": "Bench", "genre": ["Rock"], "tracks": [
            {"number": n + 1, "title": f"Track {n + 1}", "composer": "Someone", "duration": 180000,
             "price": 99} for n in range(args.tracks)]},
    ).save()
    print(f"{mongo.engine()} engine, an album of {args.tracks} tracks; {args.seconds:g} s a row")

    client = Client()
    print(f"\n{'GET /api/v1/products/' + SKU + '/...':44} {'req/s':>8} {'mean ms':>8} "
          f"{'answer bytes':>12} {'round trips':>11}")
    for path in PATHS:
        url = f"/api/v1/products/{SKU}/{path}" if path else f"/api/v1/products/{SKU}"
        with count_operations() as ops:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        rps, ms = repeat(lambda: client.get(url), args.seconds)
        print(f"{path or '(whole document)':44} {rps:>8.1f} {ms:>8.2f} "
              f"{len(response.content):>12,} {ops.total:>11}")

    print(f"\n{'manager, path':44} {'by path/s':>10} {'bytes':>8} "
          f"{'cut in Python/s':>16} {'bytes':>9}")
    for path in PATHS[1:]:
        steps = tuple(path.split("/"))
        assert Product.objects.read_by_path(SKU, steps) == cut_in_python(steps)[0]
        by_path, _ = repeat(lambda: Product.objects.read_by_path(SKU, steps), args.seconds)
        whole, _ = repeat(lambda: cut_in_python(steps), args.seconds)
        print(f"{path:44} {by_path:>10.1f} {read_by_path(steps):>8,} {whole:>16.1f} "
              f"{cut_in_python(steps)[1]:>9,}")
    Product.writes.delete_all()


if __name__ == "__main__":
    main()
