"""Benchmark: where a warm storefront page's time goes, and the pages kept whole against
the pages rendered from their kept fragments, in one process.

Run by hand (not a test), from the project::

    .venv/bin/python bench/warm_pages.py [--requests 200] [--rounds 5] [--profile] [--load]

Production settings (``bench/benchsetup.py``), Django's test client, the demo
catalog in the database ``shop_bench`` (``--load`` loads it; the other benchmarks
load it too). Two pages: the Rock category page (180 products, 24 shown, with its
facets) and the first album's page.

* ``--profile``: cProfile over ``--requests`` warm requests of each page, in each
  mode, and the share of the request of each part (the middleware, the versions
  read, the stock, the view's reads, the template, the page kept whole).
* A/B: ``--rounds`` rounds, each ``--requests`` requests of each page *kept* (the
  shop as it is: ``catalog/store/pages.py``) then *rendered* (the kept page
  neither served nor kept: the view renders from its kept fragments and reads
  every request, as before pages were kept), alternating; prints the mean ms
  of each, the round trips of one request, and the load average.
"""

import argparse
import cProfile
import os
import pstats
import time
from contextlib import contextmanager, nullcontext

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.production()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.store import pages  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402

PAGES = [("Rock category", "/c/rock/"), ("product page", "/p/CHK-0001/")]

#: The parts of a request, by the functions whose cumulative time they are (pstats keys:
#: (file suffix, function name)); what is left is the middleware and the test client.
PARTS = [
    ("versions read (1 round trip)", ("catalog/store/versions.py", "tokens")),
    ("stock read (when lapsed)", ("inventory/managers/stock.py", "available_many")),
    ("page kept whole: look-up and checks", ("catalog/store/pages.py", "kept")),
    ("holes filled", ("catalog/store/pages.py", "fill")),
    ("view and page kept whole (serve)", ("catalog/storefront/pages.py", "serve")),
    ("view function (reads and render)", ("catalog/storefront/views.py", "category|product")),
    ("template rendering", ("django/template/loader.py", "render_to_string")),
    ("kept fragments (cached reads)", ("catalog/templatetags/fragments.py", "render")),
    ("the whole request", ("django/test/client.py", "get")),
]


@contextmanager
def rendered_mode():
    """The kept page neither served nor kept: the view renders every request."""
    kept, keep, watch = pages.kept, pages.keep, pages.watch
    pages.kept, pages.keep, pages.watch = (lambda *a, **k: None), (lambda *a, **k: False), nullcontext
    try:
        yield
    finally:
        pages.kept, pages.keep, pages.watch = kept, keep, watch


def run(client, url, requests):
    """Mean ms of ``requests`` GETs of ``url``."""
    started = time.perf_counter()
    for _ in range(requests):
        response = client.get(url)
    assert response.status_code == 200, url
    return 1000 * (time.perf_counter() - started) / requests


def trips(client, url):
    with count_operations() as ops:
        client.get(url)
    return ops.operations


def profile(client, url, requests):
    """``{part: ms per request}`` (PARTS) of ``requests`` GETs of ``url`` under cProfile."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(requests):
        client.get(url)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    found = {}
    for label, (suffix, name) in PARTS:
        total = sum(row[3] for (path, _line, function), row in stats.items()
                    if path.endswith(suffix) and function in name.split("|"))
        found[label] = 1000 * total / requests
    return found, profiler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=0, help="also print the top N functions by own time")
    parser.add_argument("--load", action="store_true", help="load the demo catalog first")
    args = parser.parse_args()
    call_command("collectstatic", interactive=False, verbosity=0)  # a scratch STATIC_ROOT each run
    if args.load:
        call_command("migrate", verbosity=0)
        call_command("load_catalog", "--reset", verbosity=0)
    client = Client()
    for _, url in PAGES:
        for _ in range(3):
            client.get(url)
    if args.profile:
        for mode, context in (("kept", None), ("rendered", rendered_mode)):
            for label, url in PAGES:
                if context:
                    with context():
                        run(client, url, 3)
                        parts, profiler = profile(client, url, args.requests)
                else:
                    run(client, url, 3)
                    parts, profiler = profile(client, url, args.requests)
                print(f"{label} ({url}), {mode}, cProfile over {args.requests} requests, ms per request:")
                for part, ms in parts.items():
                    print(f"  {part:40} {ms:7.2f}")
                if args.top:
                    pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
    results = {(label, mode): [] for label, _ in PAGES for mode in ("kept", "rendered")}
    for _ in range(args.rounds):
        for label, url in PAGES:
            results[(label, "kept")].append(run(client, url, args.requests))
            with rendered_mode():
                results[(label, "rendered")].append(run(client, url, args.requests))
    print(f"A/B, {args.rounds} rounds of {args.requests} requests each, alternating; "
          f"load average {os.getloadavg()[0]:.2f}")
    for label, url in PAGES:
        kept = sum(results[(label, "kept")]) / args.rounds
        rendered = sum(results[(label, "rendered")]) / args.rounds
        with rendered_mode():
            rendered_trips = trips(client, url)
        print(f"  {label:15} kept {kept:6.2f} ms ({1000 / kept:6.1f}/s), {trips(client, url)}; "
              f"rendered {rendered:6.2f} ms ({1000 / rendered:6.1f}/s), {rendered_trips}; "
              f"{rendered / kept:.1f} times")


if __name__ == "__main__":
    main()
