"""Benchmark: requests per second of the category and product pages.

Runs the pages through Django's test client (no HTTP server) against the
database the settings choose (the local server by default, ``MONGODB_URI``
otherwise; in a database named ``shop_bench``), with two catalogs:

* Chinook: the demo catalog (Rock: 180 products, 24 shown);
* generated: 100,000 products in a tree of 5,000 categories (10 top
  categories, 90 below them, 4,900 leaves; products spread over the leaves).

Prints a table: page, catalog, products listed, requests/s, mean ms, round
trips per request; then the search page on the generated catalog (each
generated title has two words out of 2,000, so a word finds about 100
products). Usage::

    DJANGO_SECRET_KEY=bench python bench/catalog_pages.py [--products 100000] [--seconds 5]
"""

import argparse
import random
import re
import sys
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

from bson import ObjectId  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.keywords import document_keywords  # noqa: E402
from catalog.models import Category, Pricing, Product  # noqa: E402
from shop import mongo  # noqa: E402
from shop.mongo.counter import count_operations  # noqa: E402
from shop.mongo.documents import model_to_document  # noqa: E402


def measure(client, url, seconds):
    """Request ``url`` repeatedly for ``seconds``: (requests/s, mean ms, round trips, listed)."""
    with count_operations() as ops:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    found = re.search(rb'class="count">(\d+) product', response.content)
    listed = int(found.group(1)) if found else 1
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        client.get(url)
        count += 1
    elapsed = time.perf_counter() - start
    return count / elapsed, 1000 * elapsed / count, ops.total, listed


# 2,000 made-up words ("bakado", "ketiru", ...) for the generated titles.
WORDS = sorted({a + b + c for a in ("ba", "ke", "ti", "ro", "mu", "sa", "lo", "ne", "fi", "da")
                for b in ("ka", "do", "ri", "me", "lu", "po", "ta", "ve", "si", "no")
                for c in ("do", "ru", "an", "el", "os", "ix", "um", "ar", "en", "op",
                          "ra", "li", "ko", "pe", "mi", "tu", "za", "go", "he", "wy")})


def generate(products, seed=7):
    """Replace the catalog with 5,000 generated categories and ``products`` products."""
    random.seed(seed)
    Product.objects.delete_all()
    Category.objects.delete_all()
    categories = mongo.get_collection("categories")
    documents, leaves = [], []

    def add(name, parent):
        ancestors = [*parent["ancestors"], {"_id": parent["_id"], "slug": parent["slug"],
                                            "name": parent["name"]}] if parent else []
        document = {"_id": ObjectId(), "name": name, "slug": name.lower().replace(" ", "-"),
                    "parent_id": parent["_id"] if parent else None, "ancestors": ancestors,
                    "taxonomy_id": None, "position": len(documents)}
        documents.append(document)
        return document

    middles = []
    for t in range(10):
        top = add(f"Top {t}", None)
        middles += [(f"{t}-{m}", add(f"Mid {t}-{m}", top)) for m in range(9)]
    leaf = 0
    while len(documents) < 5000:  # 4,900 leaves, dealt to the middle categories in turn
        label, middle = middles[leaf % len(middles)]
        leaves.append(add(f"Leaf {label}-{leaf // len(middles)}", middle))
        leaf += 1
    categories.insert_many(documents)
    batch = []
    for n in range(products):
        list_cents = random.randrange(199, 4999)
        title = f"{random.choice(WORDS).title()} {random.choice(WORDS)} {n}"
        document = model_to_document(Product(
            sku=f"GEN-{n:06d}", type=Product.AUDIO_ALBUM, title=title, title_lower=title.casefold(),
            categories=[random.choice(leaves)["_id"]],
            pricing=Pricing.from_prices(list_cents, list_cents * 9 // 10),
        ))
        document["keywords"] = document_keywords(document)
        batch.append(document)
        if len(batch) == 5000:
            mongo.get_collection("products").insert_many(batch)
            batch = []
    if batch:
        mongo.get_collection("products").insert_many(batch)
    return len(documents)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("load_catalog", "--reset", verbosity=0)
    client = Client()
    rows = [
        ("category /c/rock/", "Chinook", *measure(client, "/c/rock/", args.seconds)),
        ("category /c/heavy-metal/", "Chinook", *measure(client, "/c/heavy-metal/", args.seconds)),
        ("product /p/CHK-0001/", "Chinook", *measure(client, "/p/CHK-0001/", args.seconds)),
    ]
    started = time.perf_counter()
    count = generate(args.products)
    print(f"generated {count} categories and {args.products} products "
          f"in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    rows += [
        ("category /c/top-0/", "generated", *measure(client, "/c/top-0/", args.seconds)),
        ("category /c/leaf-0-0-0/", "generated", *measure(client, "/c/leaf-0-0-0/", args.seconds)),
        ("product /p/GEN-000001/", "generated", *measure(client, "/p/GEN-000001/", args.seconds)),
        ("search /search/?q=bakado", "generated", *measure(client, "/search/?q=bakado", args.seconds)),
        ("search ?q=bakado+kekaru", "generated",
         *measure(client, "/search/?q=bakado+kekaru", args.seconds)),
    ]
    print(f"{'page':28} {'catalog':10} {'listed':>7} {'req/s':>8} {'mean ms':>8} {'round trips':>11}")
    for page, catalog, rps, ms, trips, listed in rows:
        print(f"{page:28} {catalog:10} {listed:>7} {rps:>8.1f} {ms:>8.1f} {trips:>11}")


if __name__ == "__main__":
    main()
