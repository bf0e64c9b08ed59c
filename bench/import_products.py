"""Benchmark: ``import_products`` of N generated products (time and peak memory).

Run by hand from the project root. It uses the test settings: a throw-away
local server for the run (no MONGODB_URI), or the server MONGODB_URI names
(use a throw-away database there: the bench writes to it):

    python bench/import_products.py [--products 100000] [--tracemalloc]

It generates a CSV of ``--products`` Audio Albums (10 top categories of 10
subcategories each, 2 categories per product, a price, a stock, an artist,
genres and an issue date), then times:

1. the first import (every product and stock document created);
2. the same file again (nothing written: every row unchanged);
3. a price and stock feed (``--only price,stock``) changing 1% of the rows.

For each: seconds, rows per second, and the process's peak resident memory
(``resource.getrusage``, the high-water mark since the start, so a figure
that stays flat from one step to the next means the step needed no more);
with ``--tracemalloc`` also the peak of Python's allocations during the first
import (slower: the time is then not the figure to quote). Figures go in
docs/performance.md ("Product import").
"""

import argparse
import csv
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.test_settings")

import django

django.setup()

from django.core.management import call_command
from django.test.utils import setup_test_environment

from catalog.models import Category, Product
from core.mongo import engine, get_collection

COLUMNS = ["sku", "type", "title", "description", "categories", "list_price", "price", "stock",
           "details.artist", "details.genre", "details.issue_date"]
WORDS = ["love", "night", "blue", "fire", "heart", "road", "city", "dream", "rock", "song", "black", "gold", "river", "light", "storm", "wild"]


def peak_mb():
    """The process's peak resident memory so far, in MB (Linux gives KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_tree():
    """10 top categories of 10 subcategories; returns their paths."""
    paths = []
    for top in range(10):
        parent = Category.writes.create_category(f"Top {top}")
        for sub in range(10):
            Category.writes.create_category(f"Sub {top}.{sub}", parent=parent)
            paths.append(f"Top {top} > Sub {top}.{sub}")
    return paths


def write_file(path, count, paths, rng):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for n in range(count):
            title = " ".join(rng.choice(WORDS) for _ in range(3)).title()
            cents = rng.randrange(199, 4999)
            writer.writerow([f"GEN-{n:07d}", "Audio Album", f"{title} {n}", f"{title}: an album.",
                             f"{rng.choice(paths)}|{rng.choice(paths)}", f"{cents // 100 + 2}.{cents % 100:02d}",
                             f"{cents // 100}.{cents % 100:02d}", rng.randrange(0, 50),
                             f"Artist {n % 5000}", rng.choice(["Rock", "Pop|Rock", "Jazz"]),
                             f"20{rng.randrange(0, 25):02d}-0{rng.randrange(1, 10)}-1{rng.randrange(0, 10)}"])


def write_feed(path, count, rng):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sku", "price", "stock"])
        for n in rng.sample(range(count), max(count // 100, 1)):
            writer.writerow([f"GEN-{n:07d}", f"{rng.randrange(1, 40)}.99", rng.randrange(0, 50)])


def timed(label, rows, call, trace=False):
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    out = StringIO()
    call(out)
    seconds = time.perf_counter() - start
    extra = ""
    if trace:
        extra = f", Python allocations peak {tracemalloc.get_traced_memory()[1] / 1e6:.0f} MB"
        tracemalloc.stop()
    print(f"{label}: {seconds:.1f} s, {rows / seconds:,.0f} rows/s, peak RSS {peak_mb():.0f} MB{extra}", flush=True)
    print(f"  {out.getvalue().strip()}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--tracemalloc", action="store_true",
                        help="also measure the peak of Python's allocations in the first import (slower)")
    args = parser.parse_args()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    call_command("ensure_indexes", verbosity=0)
    print(f"Engine: {engine()}", flush=True)
    Product.writes.delete_all()
    Category.writes.delete_all()
    get_collection("inventory").delete_many({})
    rng = random.Random(7)
    paths = make_tree()
    folder = Path(tempfile.mkdtemp(prefix="shop-bench-import-"))
    products, feed = folder / "products.csv", folder / "feed.csv"
    write_file(products, args.products, paths, rng)
    write_feed(feed, args.products, rng)
    print(f"{args.products:,} products, {products.stat().st_size / 1e6:.1f} MB of CSV; "
          f"peak RSS before importing {peak_mb():.0f} MB", flush=True)
    timed("first import", args.products,
          lambda out: call_command("import_products", str(products), "--quiet", stdout=out), args.tracemalloc)
    print(f"  products stored: {get_collection('products').count_documents({}):,}", flush=True)
    timed("the same file again", args.products,
          lambda out: call_command("import_products", str(products), stdout=out))
    timed("price and stock feed, 1% of the rows", max(args.products // 100, 1),
          lambda out: call_command("import_products", str(feed), "--only", "price,stock", stdout=out))


if __name__ == "__main__":
    main()
