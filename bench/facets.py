"""Benchmark: listing pages with facets, warm (from the catalog cache) and cold (the first
request after a catalog edit), on a generated catalog (``populatedb --products N``).

Each page is measured as ``bench/catalog_pages.py`` measures pages (the
Django test client, no HTTP server; warm requests/s over ``--seconds``,
round trips, documents examined; cold: the catalog's version bumped before
each of ``--cold`` requests, so the page and everything else of the catalog are read
again, the counts kept in the database aside; after an edit: a product of the largest
category moved across a price band just before, so its decade is counted again). The process
answers one request to another category (``/c/top-1/``) before the first page measured, so that
no page pays the process's own first request. A cold page with a choice reads the
counts without it too (the values a URL may choose), so it is the dearest
case: a shopper usually comes from the page without the choice, warm.
The largest category is ``/c/top-0/`` (a tenth of the products). Usage::

    python bench/facets.py [--products 20000] [--seconds 5] [--cold 3] [--keep]

``--keep`` measures the catalog already in ``shop_bench`` (after a first run).
"""

import argparse
import sys
import time

import catalog_pages  # sets up Django first (run from the project as python bench/...)
from django.core.management import call_command
from django.test import Client

from catalog.models import Category
from core.mongo import get_collection
from inventory.models import Inventory


def pages():
    """The pages measured: ``[(label, url)]``; an artist and a search word of the largest
    category, a few of its products sold out."""
    top = Category.objects.get_by_slug("top-0")
    some = get_collection("products").find_one({"listed_in": top.pk}, {"details": 1, "title": 1})
    artist, word = some["details"]["artist"], some["title"].split()[0].lower()
    genre = some["details"]["genre"][0]
    return [
        ("top category", "/c/top-0/"),
        ("top, a price band", "/c/top-0/?price=10-20"),
        ("top, 2 bands + in stock", "/c/top-0/?price=5-10&price=10-20&in_stock=1"),
        ("top, an artist", f"/c/top-0/?artist={artist}"),
        ("top, a genre", f"/c/top-0/?genre={genre}"),
        ("top, a format", "/c/top-0/?format=Vinyl"),
        ("top, page 5 by price", "/c/top-0/?sort=price&page=5"),
        ("leaf category", "/c/leaf-0-0-0/"),
        ("leaf, a price band", "/c/leaf-0-0-0/?price=10-20"),
        ("search", f"/search/?q={word}"),
        ("search, a price band", f"/search/?q={word}&price=10-20"),
    ]


def after_an_edit(client, url, sku, runs):
    """``(ms, documents examined)`` of ``url`` requested right after the price of ``sku`` moved
    across a price band (mean ms of ``runs``; the last run's documents examined)."""
    from catalog.models import Pricing, Product

    timings = []
    for run in range(runs):
        product = Product.objects.get(sku=sku)
        cents = 899 if product.pricing.retail >= 1000 else 1099
        product.pricing = Pricing.from_prices(cents, cents)
        product.save()
        _response, _trips, examined, ms = catalog_pages.one(client, url)
        timings.append(ms)
    return sum(timings) / len(timings), examined


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--cold", type=int, default=3, help="cold requests per page (mean)")
    parser.add_argument("--keep", action="store_true", help="measure the catalog already there")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    if not args.keep:
        started = time.perf_counter()
        call_command("populatedb", "--reset", "--products", str(args.products), verbosity=0)
        print(f"populatedb --products {args.products}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    call_command("ensure_indexes", verbosity=0)  # the facets' indexes
    skus = [d["sku"] for d in get_collection("products").find({}, {"sku": 1}).limit(50)]
    for sku in skus[::5]:  # a few sold out: the in-stock count and filter have some to leave out
        Inventory.objects.set_stock(sku, 0)
    client, rows = Client(), []
    # The process's own first request (Django's URL resolver, the templates compiled) is paid
    # on another category's page, not by the first page measured.
    client.get("/c/top-1/")
    edited = get_collection("products").find_one({"listed_in": Category.objects.get_by_slug("top-0").pk,
                                                  "variants.0": {"$exists": False}}, {"sku": 1})["sku"]
    for label, url in pages():
        rows.append((label, *catalog_pages.measure(client, url, args.seconds, args.cold),
                     *after_an_edit(client, url, edited, args.cold)))
        print(f"  measured {label}", file=sys.stderr)
    # The counts alone over every product (uncached: outside a request), for the cost per
    # product that a category of any size pays when cold.
    from catalog.listings.facets import facet_fields
    from catalog.models import Product

    started = time.perf_counter()
    counts = Product.facets.facet_counts([{"type": "Audio Album"}], facet_fields(), {}, ("products",))
    every_ms = 1000 * (time.perf_counter() - started)
    print(f"facet counts of every product ({counts['total']}): {every_ms:.0f} ms, "
          f"{1000 * every_ms / max(counts['total'], 1):.0f} µs a product")
    products = get_collection("products").estimated_document_count()
    print(f"{products} products; {'page':26} {'listed':>7} {'warm r/s':>9} {'warm ms':>8} {'trips':>5} "
          f"{'cold ms':>8} {'trips':>5} {'docs':>7} {'edit ms':>8} {'docs':>7}")
    for label, listed, rps, ms, trips, _docs, cold_ms, cold_trips, cold_docs, edit_ms, edit_docs in rows:
        print(f"{label:26} {listed:>7} {rps:>9.1f} {ms:>8.1f} {trips:>5} {cold_ms:>8.0f} {cold_trips:>5} "
              f"{cold_docs:>7} {edit_ms:>8.0f} {edit_docs:>7}")


if __name__ == "__main__":
    main()
