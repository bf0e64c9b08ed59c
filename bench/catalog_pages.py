"""Benchmark: what each storefront page costs, warm (from the catalog cache) and cold
(the first request after a catalog edit).

Runs the pages through Django's test client (no HTTP server) against the
database the settings choose (the local server by default, ``MONGODB_URI``
otherwise; in a database named ``shop_bench``), with two catalogs:

* Chinook: the demo catalog (Rock: 180 products, 24 shown);
* generated: ``manage.py populatedb --products N`` (the README's tree of
  5,000 categories: 10 top categories, 90 below them, 4,900 leaves; albums
  with tracks and stock).

For each page it prints: the products listed; warm requests/s and mean ms
(the same request repeated for ``--seconds``); warm round trips and
documents examined; cold ms (the catalog's version bumped before each
request, so every catalog read misses the cache: the mean of ``--cold``
requests; each catalog's pages after one request to a page not measured, so that the
process's own first request is charged to none), cold round trips and documents examined. Documents examined are
the server's own figures: an ``explain`` (``executionStats``) of every read
the request sent, summed. Usage::

    python bench/catalog_pages.py [--products 100000] [--seconds 5] [--cold 3] [--skip-generated] [--skip-chinook] [--reuse]
"""

import argparse
import re
import sys
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.models import CatalogVersion  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402

_DRIVER_FIELDS = ("lsid", "$db", "$clusterTime", "$readPreference", "txnNumber",
                  "autocommit", "startTransaction", "readConcern", "cursor")


def generated_products():
    """How many products ``populatedb`` generated are in the database (SKUs ``GEN-``)."""
    from catalog.models import Product

    return Product.objects.collection.count_documents({"sku": {"$gte": "GEN-", "$lt": "GEN."}})


def documents_examined(ops):
    """The documents the reads of ``ops`` examined (the server's explain, summed)."""
    database, total = connections["default"].database, 0
    for (_, operation), command in zip(ops.operations, ops.commands):
        if operation not in ("find", "aggregate", "count") or command is None:
            continue
        query = {k: v for k, v in command.items() if k not in _DRIVER_FIELDS}
        if operation == "aggregate":
            query["cursor"] = {}
        total += database.command("explain", query, verbosity="executionStats")[
            "executionStats"]["totalDocsExamined"]
    return total


def one(client, url):
    """One request: (response, round trips, documents examined, ms)."""
    with count_operations() as ops:
        started = time.perf_counter()
        response = client.get(url)
        ms = 1000 * (time.perf_counter() - started)
    assert response.status_code == 200, (url, response.status_code)
    return response, ops.total, documents_examined(ops), ms


def measure(client, url, seconds, cold_runs):
    """``(listed, warm req/s, warm ms, warm trips, warm examined, cold ms, cold trips,
    cold examined)`` of ``url``."""
    cold = []
    for _ in range(cold_runs):
        CatalogVersion.objects.bump()
        cold.append(one(client, url))
    response, warm_trips, warm_examined, _ = one(client, url)
    found = re.search(rb'class="count">(\d+) product', response.content)
    listed = int(found.group(1)) if found else 1
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        client.get(url)
        count += 1
    elapsed = time.perf_counter() - start
    cold_ms = sum(c[3] for c in cold) / len(cold)
    return (listed, count / elapsed, 1000 * elapsed / count, warm_trips, warm_examined,
            cold_ms, cold[-1][1], cold[-1][2])


def run(rows, catalog, pages, args, warm_up):
    """Measure ``pages`` (``[(label, url)]``) into ``rows``, after one request to ``warm_up`` (a
    page not measured: the process's own first request, its URL resolver and templates
    compiled, is not charged to the first page)."""
    client = Client()
    client.get(warm_up)
    for label, url in pages:
        rows.append((label, catalog, *measure(client, url, args.seconds, args.cold)))
        print(f"  measured {label}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--cold", type=int, default=3, help="cold requests per page (mean)")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--skip-chinook", action="store_true")
    parser.add_argument("--reuse", action="store_true",
                        help="keep a generated catalog already holding --products (no populatedb)")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    rows = []
    if not args.skip_chinook:
        call_command("load_catalog", "--reset", verbosity=0)
        run(rows, "Chinook", [("category /c/rock/", "/c/rock/"),
                              ("category /c/heavy-metal/", "/c/heavy-metal/"),
                              ("product /p/CHK-0001/", "/p/CHK-0001/"),
                              ("home /", "/")], args, "/c/jazz/")
    if not args.skip_generated:
        if not (args.reuse and generated_products() >= args.products):
            started = time.perf_counter()
            call_command("populatedb", "--reset", "--products", str(args.products), verbosity=0)
            print(f"populatedb --products {args.products}: {time.perf_counter() - started:.0f} s",
                  file=sys.stderr)
        run(rows, "generated", [
            ("category /c/top-0/", "/c/top-0/"),
            ("category /c/top-0/?page=5", "/c/top-0/?page=5&sort=price"),
            ("category /c/leaf-0-0-0/", "/c/leaf-0-0-0/"),
            ("product /p/GEN-000001/", "/p/GEN-000001/"),
            ("search ?q=bakado", "/search/?q=bakado"),
            ("deals /deals/?min=25", "/deals/?min=25"),
            ("home /", "/"),
        ], args, "/c/top-1/")
    print(f"{'page':28} {'catalog':9} {'listed':>7} {'warm r/s':>9} {'warm ms':>8} {'trips':>5} "
          f"{'docs':>5} {'cold ms':>8} {'trips':>5} {'docs':>7}")
    for page, catalog, listed, rps, ms, trips, docs, cold_ms, cold_trips, cold_docs in rows:
        print(f"{page:28} {catalog:9} {listed:>7} {rps:>9.1f} {ms:>8.1f} {trips:>5} {docs:>5} "
              f"{cold_ms:>8.0f} {cold_trips:>5} {cold_docs:>7}")


if __name__ == "__main__":
    main()
