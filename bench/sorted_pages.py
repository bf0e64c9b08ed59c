"""Benchmark: a large category's pages sorted by price (both ways) or by title on their first
visit, read from the kept order counts (``OrderCount.objects``, ``ListingManager.kept_order``)
and, alternately in the same process, by the whole sort of the category's matches (the
path before them, ``kept_order`` made to decline).

Runs through Django's test client against the database the settings choose (the local
server by default, in ``shop_bench``), on the generated catalog
(``populatedb --products N``, made when the database holds another number of products).
A *first visit* is a request after the catalog's epoch is bumped (every cached read misses;
the kept counts stay); *after an edit*, after a product of the category is given a price a
few percent higher (its bands' counts are counted again by the first page that reads them).
For each page it prints the mean ms, the round trips and the documents examined (the
server's ``explain`` of every read, summed, as ``bench/catalog_pages.py``). Usage::

    python bench/sorted_pages.py [--products 20000] [--tops 2] [--runs 3]
"""

import argparse
import statistics
import sys
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.listings.manager import ListingManager  # noqa: E402
from catalog.models import CatalogVersion, Category, Pricing, Product  # noqa: E402
import catalog_pages  # noqa: E402

SORTS = ("price", "-price", "title")
PAGES = (1, 2, 5)


def one(client, url):
    """One request: (ms, round trips, documents examined), as ``catalog_pages.one`` times it."""
    _response, trips, examined, ms = catalog_pages.one(client, url)
    return ms, trips, examined


def edit_price(category):
    """Give a product of ``category`` a price 3 % higher (``Product.save``)."""
    document = Product.objects.collection.find_one({"listed_in": category.pk}, {"sku": 1})
    product = Product.objects.get(sku=document["sku"])
    retail = product.pricing.retail * 103 // 100
    product.pricing = Pricing.from_prices(max(product.pricing.list, retail), retail)
    product.save()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=20_000)
    parser.add_argument("--tops", type=int, default=2, help="top categories measured")
    parser.add_argument("--runs", type=int, default=3, help="first visits per page and path (mean)")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    if Product.objects.collection.estimated_document_count() != args.products:
        started = time.perf_counter()
        call_command("populatedb", "--reset", "--products", str(args.products), verbosity=0)
        print(f"populatedb --products {args.products}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    kept_order = ListingManager.kept_order
    paths = {"kept counts": kept_order, "whole sort": lambda *a, **k: None}
    client = Client()
    rows = []
    for t in range(args.tops):
        top = Category.objects.get(slug=f"top-{t}")
        client.get(f"/c/top-{t}/")  # its facet counts, kept: not what is measured
        for sort in SORTS:
            for page in PAGES:
                url = f"/c/top-{t}/?sort={sort}&page={page}"
                for visit in ("first visit", "after an edit"):
                    measured = {name: [] for name in paths}
                    for _ in range(args.runs):
                        for name, path in paths.items():  # alternately, in one process
                            ListingManager.kept_order = path
                            if visit == "after an edit":
                                edit_price(top)
                            CatalogVersion.objects.bump()
                            measured[name].append(one(client, url))
                    ListingManager.kept_order = kept_order
                    for name, runs in measured.items():
                        rows.append((url, visit, name, statistics.mean(r[0] for r in runs), runs[-1][1],
                                     runs[-1][2]))
                print(f"  measured {url}", file=sys.stderr)
    print(f"{'page':30} {'visit':14} {'path':12} {'ms':>7} {'trips':>5} {'docs':>6}")
    for url, visit, name, ms, trips, docs in rows:
        print(f"{url:30} {visit:14} {name:12} {ms:>7.0f} {trips:>5} {docs:>6}")


if __name__ == "__main__":
    main()
