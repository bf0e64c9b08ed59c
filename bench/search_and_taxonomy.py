"""Benchmark: taxonomy import time and search throughput.

Run by hand from the project root. It uses the test settings: a throw-away
local server for the run (no MONGODB_URI), or the server MONGODB_URI names
(use a throw-away database there: the bench writes to it):

    python bench/search_and_taxonomy.py [--lines 5000] [--products 100000] [--requests 5]

Prints:
1. the time to import a generated Google product taxonomy file of
   ``--lines`` lines (10 top categories, 3 levels), to re-import it unchanged,
   and to import a newer version with 1% of the categories renamed and 1% moved;
2. for each catalog size in ``--products`` (generated albums, 5 tracks each),
   requests per second of ``/search/?q=`` (count and page: 2 round trips on
   the ``keywords`` index) and of ``/search/suggest/?q=`` (1 round trip)
   through Django's test client, rendering included.
Figures go in docs/performance.md ("Search and taxonomy import").
"""

import argparse
import datetime
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.test_settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from catalog.products.variants import apply_to_document  # noqa: E402
from catalog.products.keywords import document_keywords  # noqa: E402
from catalog.listings.search import lower_title  # noqa: E402
from catalog.models import Category, Pricing, Product  # noqa: E402
from core.mongo import engine, get_collection  # noqa: E402
from core.mongo.documents import model_to_document  # noqa: E402

WORDS = ("love night blue fire heart road city dream rock song black gold river light "
         "storm wild time sun moon star rain soul king queen ghost iron glass silver "
         "summer winter ocean desert shadow thunder angel devil paper stone").split()


def taxonomy_lines(count, renamed=(), moved=()):
    """``count`` lines of a 3-level taxonomy: 10 tops, 10 branches each, then leaves.

    IDs in ``renamed`` get a new name; IDs in ``moved`` go under the next branch.
    """
    tops = [(i, f"Department {i}") for i in range(1, 11)]
    branches = [(100 + 10 * t + b, t, f"Aisle {t}.{b}") for t, _ in tops for b in range(10)]
    lines = [f"{i} - {name}" for i, name in tops]
    names = dict(tops)
    paths = {}
    for i, top, name in branches:
        paths[i] = f"{names[top]} > {name}"
        lines.append(f"{i} - {paths[i]}")
    branch_ids = [i for i, _, _ in branches]
    leaf = 10_000
    while len(lines) < count:
        branch = branch_ids[(leaf - 10_000) % len(branch_ids)]
        if leaf in moved:
            branch = branch_ids[(branch_ids.index(branch) + 1) % len(branch_ids)]
        name = f"Shelf {leaf}" + (" (renamed)" if leaf in renamed else "")
        lines.append(f"{leaf} - {paths[branch]} > {name}")
        leaf += 1
    return ["# Google_Product_Taxonomy_Version: bench"] + lines


def timed(label, function):
    start = time.perf_counter()
    result = function()
    elapsed = time.perf_counter() - start
    print(f"  {label}: {elapsed:.2f} s", flush=True)
    return result, elapsed


def bench_taxonomy(count):
    print(f"Taxonomy import, {count} lines:", flush=True)
    Category.writes.delete_all()
    with tempfile.TemporaryDirectory() as directory:
        first, second = Path(directory, "v1.txt"), Path(directory, "v2.txt")
        first.write_text("\n".join(taxonomy_lines(count)) + "\n")
        leaves = range(10_000, 10_000 + count - 110)
        step = 100
        second.write_text("\n".join(taxonomy_lines(
            count, renamed=set(leaves[::step]), moved=set(leaves[1::step]))) + "\n")
        timed("first import", lambda: call_command("import_taxonomy", str(first), verbosity=0))
        timed("re-import, unchanged", lambda: call_command("import_taxonomy", str(first), verbosity=0))
        timed(f"newer file, {len(leaves[::step])} renamed and {len(leaves[1::step])} moved",
              lambda: call_command("import_taxonomy", str(second), verbosity=0))
    print(f"  categories stored: {Category.objects.count()}")
    Category.writes.delete_all()


def generated_products(count, rng):
    issue = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
    for number in range(count):
        title = " ".join(rng.sample(WORDS, 3)).title()
        tracks = [{"number": t, "title": " ".join(rng.sample(WORDS, 2)).title(), "composer": "",
                   "duration": 200_000, "price": 99} for t in range(1, 6)]
        list_cents = 1299
        yield Product(
            sku=f"BENCH-{number:06d}", type="Audio Album", title=f"{title} {number}",
            description=f"{title} by Band {number % 5000}: 5 tracks.",
            details={"artist": f"Band {number % 5000}", "genre": [rng.choice(WORDS)],
                     "issue_date": issue + datetime.timedelta(days=number % 9000), "tracks": tracks},
            pricing=Pricing.from_prices(list_cents, 999),
        )


def rate(client, path, queries):
    start = time.perf_counter()
    for query in queries:
        response = client.get(path, {"q": query})
        assert response.status_code == 200, response.status_code
    return len(queries) / (time.perf_counter() - start)


def load(products):
    """Insert ``products`` as the ORM would store them (``title_lower``, ``keywords`` and ``skus``
    included)."""
    documents = []
    for product in products:
        document = apply_to_document(model_to_document(product))
        document["title_lower"] = lower_title(document["title"])
        document["keywords"] = document_keywords(document)
        documents.append(document)
    get_collection("products").insert_many(documents, ordered=False)


def bench_search(sizes, requests, rng):
    """Grow the catalog to each of ``sizes`` products and measure the search pages."""
    Product.writes.delete_all()
    # Loading is not what is measured: the bench inserts the documents directly.
    products = generated_products(max(sizes), rng)
    client = Client()
    loaded = 0
    for size in sorted(sizes):
        start = time.perf_counter()
        while loaded < size:
            batch = [p for _, p in zip(range(min(5000, size - loaded)), products)]
            load(batch)
            loaded += len(batch)
        print(f"Search over {size} generated products (loaded in {time.perf_counter() - start:.1f} s):",
              flush=True)
        words = rng.sample(WORDS, requests)
        print(f"  /search/?q=<one word>: {rate(client, '/search/', words):.3f} requests/s "
              f"({requests} requests each)", flush=True)
        pairs = [f"{a} {b}" for a, b in zip(words, rng.sample(WORDS, requests))]
        print(f"  /search/?q=<two words>: {rate(client, '/search/', pairs):.3f} requests/s", flush=True)
        prefixes = [w[:3] for w in words]
        print(f"  /search/suggest/?q=<3 letters>: "
              f"{rate(client, '/search/suggest/', prefixes):.3f} requests/s", flush=True)
    Product.writes.delete_all()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--products", type=int, nargs="*", default=[100_000],
                        help="catalog sizes to measure, e.g. 5000 20000 100000")
    parser.add_argument("--requests", type=int, default=3)
    parser.add_argument("--skip-taxonomy", action="store_true")
    args = parser.parse_args()
    setup_test_environment()
    call_command("migrate", verbosity=0)
    print(f"Engine: {engine()}")
    rng = random.Random(5)
    if not args.skip_taxonomy:
        bench_taxonomy(args.lines)
    if args.products:
        bench_search(args.products, args.requests, rng)


if __name__ == "__main__":
    main()
