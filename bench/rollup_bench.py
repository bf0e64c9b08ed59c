"""Benchmark of ``rollup_stats`` ("Hierarchical Aggregation" use case's rollups): a full run, then an incremental one.

    python bench/rollup_bench.py [--events 1000000] [--days 365] [--new 10000] [--tracemalloc]
                                 [--generate-only | --reuse]

Uses the shop's settings: the local server, or the server ``MONGODB_URI``
names; it works in the database ``MONGODB_NAME`` (default ``shop_bench``),
which it empties first. It loads the Chinook
catalog, generates ``--events`` events (70% product views, 20% add-to-cart,
10% sales) spread evenly over the last ``--days`` days across the 347 SKUs,
rolls them all up, then records ``--new`` events in the last hour and rolls
up again. It prints the wall time of each run, the documents of each level
(``stats.hourly``: one per key and day, with the hourly buckets inside) and
the peak memory: the
process's peak resident size (``resource.getrusage``; the data lives in the
server's process) and, with ``--tracemalloc``, the peak of
Python allocations during each run (slower).

``--generate-only`` stops after generating the events; ``--reuse`` keeps the
events already in the database (an earlier ``--generate-only`` run's) and
only empties the rollups before timing them, so that the rollup can be
measured again after a change without generating a million events again.
"""

import argparse
import datetime
import os
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdefghijklmnop")
os.environ.setdefault("MONGODB_NAME", "shop_bench")


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def generate(count, skus, start, seconds, rng):
    """``count`` event documents between ``start`` and ``start + seconds``."""
    for _ in range(count):
        roll = rng.random()
        sku = rng.choice(skus)
        ts = start + datetime.timedelta(seconds=rng.randrange(seconds))
        if roll < 0.7:
            yield {"type": "view", "sku": sku, "qty": 1, "amount": 0, "userid": "", "ts": ts}
        elif roll < 0.9:
            yield {"type": "cart", "sku": sku, "qty": 1, "amount": 0, "userid": "", "ts": ts}
        else:
            qty = rng.randint(1, 3)
            yield {"type": "sale", "sku": sku, "qty": qty, "amount": 999 * qty,
                   "userid": f"c{rng.randrange(1000)}@example.com", "ts": ts}


def insert(count, skus, start, seconds, rng, batch=10_000):
    from analytics.models import Event

    documents = generate(count, skus, start, seconds, rng)
    written = 0
    while written < count:
        chunk = [next(documents) for _ in range(min(batch, count - written))]
        written += Event.objects.insert_generated(chunk)


def timed_rollup(label, use_tracemalloc):
    from analytics.models import RollupProgress

    if use_tracemalloc:
        tracemalloc.start()
    began = time.perf_counter()
    report = RollupProgress.objects.rollup()
    elapsed = time.perf_counter() - began
    traced = ""
    if use_tracemalloc:
        traced = f", Python allocations peak {tracemalloc.get_traced_memory()[1] / 2**20:.0f} MB"
        tracemalloc.stop()
    print(f"{label}: {elapsed:.1f} s, {report['hours']} hours touched{traced}, "
          f"peak RSS so far {peak_rss_mb():.0f} MB", flush=True)
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--new", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--generate-only", action="store_true", help="stop after generating the events")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the events already stored; only empty the rollups")
    options = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    from analytics.periods import LEVELS
    from catalog.models import Product
    from core.mongo import engine, get_collection

    call_command("migrate", verbosity=0, interactive=False)
    for name in [*([] if options.reuse else ["events"]), "stats.progress", *(level.collection for level in LEVELS)]:
        get_collection(name).delete_many({})
    call_command("load_catalog", verbosity=0)
    skus = sorted(Product.objects.values_list("sku", flat=True))
    rng = random.Random(options.seed)
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    if options.reuse:
        stored = get_collection("events").estimated_document_count()
        print(f"engine {engine()}, reusing the {stored:,} events stored, {len(skus)} SKUs", flush=True)
    else:
        print(f"engine {engine()}, {options.events:,} events over {options.days} days, {len(skus)} SKUs",
              flush=True)
        began = time.perf_counter()
        start = now - datetime.timedelta(days=options.days, hours=1)
        insert(options.events, skus, start, options.days * 86400, rng)
        print(f"generated and inserted in {time.perf_counter() - began:.1f} s, "
              f"peak RSS {peak_rss_mb():.0f} MB", flush=True)
    if options.generate_only:
        return
    timed_rollup("full rollup", options.tracemalloc)
    documents = {level.name: get_collection(level.collection).estimated_document_count() for level in LEVELS}
    # stats.hourly holds a key's day of hours per document: count its hours too (one aggregate, untimed).
    hours = next(get_collection("stats.hourly").aggregate(
        [{"$group": {"_id": None, "n": {"$sum": {"$size": "$hours"}}}}]), {"n": 0})["n"]
    print(f"documents: {documents.pop('hourly'):,} hourly (key and day, holding {hours:,} hourly buckets), "
          + ", ".join(f"{n:,} {name}" for name, n in documents.items()), flush=True)

    insert(options.new, skus, now - datetime.timedelta(hours=1), 3600, rng)
    timed_rollup(f"incremental rollup after {options.new:,} new events", options.tracemalloc)


if __name__ == "__main__":
    main()
