"""Benchmark: what one price edit costs the pages after it, robust to the machine's load.

The mix of ``bench/pages_under_edits.py`` (116 pages), each visited until it is kept whole;
then ``--edits`` price edits, one at a time, each as that script's editor makes it (a random
product's retail price set to 70 to 100 % of its list price, ``Product.save``), here in the
same process. For each edit: the version scopes it bumps and its own round trips; which of
the mix's kept pages those scopes invalidate (the kept page's names that were bumped, by
kind of scope); then each invalidated page requested until it is kept whole again, with the
round trips, documents examined (the server's explain, as ``bench/catalog_pages.py``) and
ms of each of those requests. ``--profile``: a cProfile of those requests (the top
functions by cumulative time). Works in the database ``shop_bench_edits`` of
``pages_under_edits.py`` (run that first: it generates the catalog). Usage::

    python bench/edit_costs.py [--edits 40] [--profile]
"""

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from collections import Counter, defaultdict

os.environ.setdefault("MONGODB_NAME", "shop_bench_edits")

import benchsetup  # noqa: E402

benchsetup.production()

from django.conf import settings  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.client import RequestFactory  # noqa: E402

from catalog.models import CatalogVersion, Pricing, Product  # noqa: E402
from catalog.store import pages as kept_pages  # noqa: E402
from catalog.store.cache import UNSET  # noqa: E402
from catalog.store.versions import CatalogVersionManager  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from catalog_pages import documents_examined  # noqa: E402
from pages_under_edits import kind, pages  # noqa: E402

_bumped = []
_original_bump = CatalogVersionManager.bump


def _recording_bump(self, names=("catalog",)):
    _bumped.append(tuple(names))
    return _original_bump(self, names)


CatalogVersionManager.bump = _recording_bump


def entry_of(url):
    """The kept page of ``url`` for a guest (the test client's), or None."""
    request = RequestFactory().get(url)
    return caches[settings.CATALOG_CACHE].get(kept_pages.page_key(request, "guest"))


def scope_kind(name):
    """``cards``, ``prices``, ``prices-n``, ``savings``... of a scope name."""
    head = name.split(":")[0]
    if head == "prices" and name.split(":")[-1].startswith("n"):
        return "prices-n"
    if head == "savings" and name.count(":") == 2:
        return "savings-part"
    if head == "faceted" and name.count(":") == 2:
        return "faceted-part"
    return head


def valid(entry):
    """Whether the kept page ``entry`` is still served: its versions unchanged (its stock
    and kept values aside)."""
    if entry is None:
        return False
    read = CatalogVersion.objects.tokens(list(entry["names"]))
    return tuple(read.get(n, UNSET) for n in entry["names"]) == tuple(entry["tokens"])


def settle(client, url, limit=5):
    """Request ``url`` until it is kept whole (at most ``limit`` times): a list of
    ``(trips, examined, ms, operations)`` of the requests that were not served whole."""
    costs = []
    for _ in range(limit):
        if valid(entry_of(url)):
            break
        with count_operations() as ops:
            started = time.perf_counter()
            response = client.get(url)
            ms = 1000 * (time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        costs.append((ops.total, documents_examined(ops), ms, [op for op in ops.operations]))
    return costs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--seed", type=int, default=None, help="of the edits (default: random)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    call_command("collectstatic", interactive=False, verbosity=0)
    urls = pages()
    client = Client()
    for _ in range(3):
        for url in urls:
            client.get(url)
    unkept = [url for url in urls if entry_of(url) is None]
    print(f"{len(urls)} pages; not kept whole after 3 visits: {unkept}", file=sys.stderr)
    ids = [d["_id"] for d in Product.objects.collection.find({}, {"_id": 1})]
    rng = random.Random(args.seed)
    profile = cProfile.Profile() if args.profile else None
    edit_costs, hit_by_kind, pages_hit, page_costs = [], Counter(), Counter(), defaultdict(list)
    names_per_edit, scopes_hits = [], Counter()
    for number in range(args.edits):
        # Keep every page kept before the edit (stock lapses meanwhile: a read, not a miss).
        for url in urls:
            settle(client, url)
        product = Product.objects.get(pk=rng.choice(ids))
        list_cents = product.pricing.list or 1000
        product.pricing = Pricing.from_prices(list_cents, list_cents * rng.randrange(70, 101) // 100)
        del _bumped[:]
        with count_operations() as ops:
            started = time.perf_counter()
            product.save()
            ms = 1000 * (time.perf_counter() - started)
        bumped = {n for names in _bumped for n in names}
        names_per_edit.append(len(bumped))
        edit_costs.append((ops.total, ops.write_statements, ms))
        invalid = []
        for url in urls:
            entry = entry_of(url)
            hit = set(entry["names"]) & bumped if entry is not None else {"(not kept)"}
            if hit:
                invalid.append(url)
                pages_hit[kind(url)] += 1
                for k in {scope_kind(n) for n in hit}:
                    hit_by_kind[(kind(url), k)] += 1
                scopes_hits[tuple(sorted({scope_kind(n) for n in hit}))] += 1
        if profile:
            profile.enable()
        for url in invalid:
            costs = settle(client, url)
            page_costs[kind(url)].append(costs)
        if profile:
            profile.disable()
    print(f"{args.edits} edits: {statistics.fmean(names_per_edit):.1f} scopes bumped each; the edit "
          f"{statistics.fmean(c[0] for c in edit_costs):.1f} round trips, "
          f"{statistics.fmean(c[1] for c in edit_costs):.1f} write statements, "
          f"{statistics.fmean(c[2] for c in edit_costs):.1f} ms")
    print("pages invalidated per edit, by kind (pages of that kind in the mix):")
    in_mix = Counter(kind(u) for u in urls)
    for name in sorted(in_mix):
        print(f"  {name:16} {pages_hit[name] / args.edits:6.2f} of {in_mix[name]}")
    print("invalidations by kind of page and scope bumped (count over all edits):")
    for (page, scope), n in sorted(hit_by_kind.items()):
        print(f"  {page:16} {scope:14} {n}")
    print("scope sets that invalidated a page:", dict(scopes_hits.most_common(12)))
    print("requests until kept whole again, per invalidated page: mean trips, docs, ms of each request")
    total_ms = 0.0
    for name, runs in sorted(page_costs.items()):
        depth = max(len(r) for r in runs)
        parts = []
        for i in range(depth):
            at = [r[i] for r in runs if len(r) > i]
            parts.append(f"#{i + 1}: n={len(at)} {statistics.fmean(a[0] for a in at):.1f} trips "
                         f"{statistics.fmean(a[1] for a in at):.0f} docs {statistics.fmean(a[2] for a in at):.1f} ms")
        spent = sum(a[2] for r in runs for a in r)
        total_ms += spent
        print(f"  {name:16} {len(runs):4} pages; {spent / args.edits:7.1f} ms per edit; " + "; ".join(parts))
    print(f"all pages: {total_ms / args.edits:.1f} ms per edit (plus the edit's own "
          f"{statistics.fmean(c[2] for c in edit_costs):.1f} ms)")
    ops_by_kind = defaultdict(Counter)
    for name, runs in page_costs.items():
        for r in runs:
            for a in r:
                ops_by_kind[name].update(f"{c}.{o}" for c, o in a[3])
    for name, counter in sorted(ops_by_kind.items()):
        print(f"  {name:16} operations: {dict(counter.most_common(10))}")
    if profile:
        stats = pstats.Stats(profile, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
