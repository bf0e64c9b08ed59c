"""Benchmark: the shop beside django-oscar, in one run, on the same Chinook catalog.

Run by hand (not a test), from the project::

    .venv/bin/python bench/oscar_side_by_side.py [--seconds 10] [--rounds 2]

1. Loads the demo catalog into the shop (the local server by default,
   ``MONGODB_URI`` otherwise; database ``shop_bench``) and exports it as
   JSON: categories, products (SKU, title, a description with the tracks,
   retail price, categories), stock.
2. Makes a virtualenv for Oscar under ``bench/results/oscar/`` on the first
   run (``pip install django-oscar==4.2.1 sorl-thumbnail whoosh``: Oscar
   needs other Django apps than ours, so it never shares our virtualenv),
   where ``bench/oscar_shop.py`` builds a minimal Oscar 4 shop (SQLite,
   haystack with Whoosh) from that export.
3. Requests the Rock category page and the first product's page of each
   shop through Django's test client, warm, ``--seconds`` each, the shops
   taking turns for ``--rounds`` rounds; prints each page's requests/s
   (the mean over the rounds), mean ms, queries (Oscar: SQL; the shop:
   round trips to MongoDB) and the ratio.

Both run with ``DEBUG`` off and their production template loaders, in one
process each, on the same machine, so the ratio holds while absolute
figures follow the machine's load.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.models import Category, Product  # noqa: E402
from inventory.models import Inventory  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402

OSCAR_VERSION = "4.2.1"
HERE = Path(__file__).resolve().parent
WORKDIR = HERE / "results" / "oscar"
PAGES = [("category: Rock", "category", "rock"), ("product: first album", "product", "CHK-0001")]


def export_catalog(path):
    """Write the shop's catalog as ``oscar_shop.load`` reads it; returns the product count."""
    categories = sorted(Category.objects.all(), key=lambda c: len(c.ancestors))
    by_id = {c.pk: c for c in categories}
    products = list(Product.objects.all())
    stock = Inventory.objects.available_many([p.sku for p in products])
    catalog = {
        "categories": [{"slug": c.slug, "name": c.name,
                        "parent": by_id[c.parent_id].slug if c.parent_id else None}
                       for c in categories],
        "products": [{
            "sku": p.sku, "title": p.title, "price_cents": p.pricing.retail,
            "description": "\n".join([p.description] + [t["title"] for t in (p.details or {}).get("tracks") or []]),
            "categories": [by_id[c].slug for c in p.categories if c in by_id],
            "stock": stock.get(p.sku, 0),
        } for p in products],
    }
    path.write_text(json.dumps(catalog))
    return len(products)


def oscar_python():
    """The Oscar virtualenv's python, made on the first run."""
    venv = WORKDIR / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making {venv} (django-oscar=={OSCAR_VERSION})", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"django-oscar=={OSCAR_VERSION}",
                        "sorl-thumbnail", "whoosh"], check=True)
    return python


def measure_shop(url, seconds):
    """``(requests/s, mean ms, round trips of one request)`` of the shop's ``url``, warm."""
    client = Client()
    for _ in range(3):
        assert client.get(url).status_code == 200, url
    with count_operations() as ops:
        client.get(url)
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        client.get(url)
        count += 1
    elapsed = time.perf_counter() - started
    return count / elapsed, 1000 * elapsed / count, ops.total


def measure_oscar(python, catalog, seconds):
    """``{label: (requests/s, mean ms, SQL queries)}`` of Oscar's pages (one subprocess)."""
    specs = [f"{label}={kind}:{key}" for label, kind, key in PAGES]
    run = subprocess.run(
        [str(python), str(HERE / "oscar_shop.py"), "--workdir", str(WORKDIR / "shop"),
         "--catalog", str(catalog), "--seconds", str(seconds), *specs],
        capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"oscar_shop.py failed:\n{run.stderr}")
    result = json.loads(run.stdout.strip().splitlines()[-1])
    return result["oscar"], {p["page"]: (p["requests_per_second"], p["mean_ms"], p["queries"])
                             for p in result["pages"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("load_catalog", "--reset", verbosity=0)
    WORKDIR.mkdir(parents=True, exist_ok=True)
    catalog = WORKDIR / "catalog.json"
    products = export_catalog(catalog)
    python = oscar_python()
    urls = {"category": "/c/{}/", "product": "/p/{}/"}
    ours = {label: [] for label, _, _ in PAGES}
    theirs = {label: [] for label, _, _ in PAGES}
    version = None
    for round_number in range(args.rounds):
        for label, kind, key in PAGES:
            ours[label].append(measure_shop(urls[kind].format(key), args.seconds))
        version, figures = measure_oscar(python, catalog, args.seconds)
        for label, row in figures.items():
            theirs[label].append(row)
        print(f"  round {round_number + 1} of {args.rounds} done", file=sys.stderr)

    def mean(rows, i):
        return sum(r[i] for r in rows) / len(rows)

    print(f"Chinook catalog, {products} products; django-oscar {version} (SQLite, Whoosh) "
          f"beside the shop; {args.rounds} rounds of {args.seconds:g} s per page")
    print(f"{'page':22} {'shop r/s':>9} {'ms':>6} {'trips':>5} {'oscar r/s':>10} {'ms':>6} "
          f"{'SQL':>4} {'ratio':>6}")
    for label, _, _ in PAGES:
        shop_rps, oscar_rps = mean(ours[label], 0), mean(theirs[label], 0)
        print(f"{label:22} {shop_rps:>9.1f} {mean(ours[label], 1):>6.1f} {ours[label][-1][2]:>5} "
              f"{oscar_rps:>10.1f} {mean(theirs[label], 1):>6.1f} {theirs[label][-1][2]:>4} "
              f"{shop_rps / oscar_rps:>6.1f}")


if __name__ == "__main__":
    main()
