"""Benchmark of the category changelist in the admin: round trips and time against the tree's size.

Run by hand (not a test)::

    python bench/admin_bench.py [--sizes 1000,5000,20000] [--repeat 5]
    python bench/admin_bench.py --taxonomy-shape        # 5,582 categories, 7 levels
    python bench/admin_bench.py --taxonomy FILE         # a Google product taxonomy file

Uses the database the settings choose (the local server by default,
``MONGODB_URI`` otherwise), in a database named ``shop_bench`` that it
empties first. For each size it stores a tree of that many
categories (three levels), then requests the tree ``/admin/catalog/category/``
(the whole tree on one page) and a search, as a logged-in superuser, through
Django's test client. Prints, per request, the database round trips (the
same at every size), the median wall time of ``--repeat`` requests and the
size of the page. ``--taxonomy FILE`` imports a Google product taxonomy file
(``import_taxonomy``) instead; ``--taxonomy-shape`` generates a tree of the
full Google taxonomy's size and depth (5,582 categories on 7 levels).
"""

import argparse
import statistics
import time

import benchsetup  # noqa: E402  (sets up Django: run from the project as python bench/...)

benchsetup.development()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.models import Category  # noqa: E402
from core.mongo import engine  # noqa: E402
from core.mongo.counter import count_operations  # noqa: E402
from tests.support.tree import insert_tree  # noqa: E402


def shape(size):
    """(roots, children, grandchildren) giving about ``size`` categories."""
    roots = children = max(int(round(size ** (1 / 3))), 1)
    grandchildren = max(size // (roots * children) - 1, 1)
    return roots, children, grandchildren


# Categories per level of the generated taxonomy-sized tree: 5,582 on 7 levels.
TAXONOMY_LEVELS = [21, 192, 1349, 2310, 1345, 328, 37]


def insert_levels(levels):
    """Store a tree with ``levels[k]`` categories at depth k, each parent's children spread
    evenly; returns the number of categories."""
    from bson import ObjectId

    documents, previous, position = [], [None], {}
    for depth, count in enumerate(levels):
        current = []
        for number in range(count):
            parent = previous[number % len(previous)]
            ancestors = [] if parent is None else [
                *parent["ancestors"], {"_id": parent["_id"], "slug": parent["slug"], "name": parent["name"]}]
            parent_id = parent and parent["_id"]
            position[parent_id] = position.get(parent_id, -1) + 1
            node = {"_id": ObjectId(), "name": f"Level {depth} node {number}", "slug": f"l{depth}-{number}",
                    "parent_id": parent_id, "ancestors": ancestors, "taxonomy_id": None,
                    "position": position[parent_id]}
            documents.append(node)
            current.append(node)
        previous = current
    Category.objects.collection.insert_many(documents)
    return len(documents)


def measure(client, path, repeat):
    with count_operations() as ops:
        response = client.get(path)
    assert response.status_code == 200, response.status_code
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(path)
        times.append(time.perf_counter() - start)
    return ops.total, statistics.median(times), len(response.content)


def trees(args):
    """Yield once per tree to measure, after storing it."""
    if args.taxonomy:
        Category.objects.collection.delete_many({})
        call_command("import_taxonomy", args.taxonomy, verbosity=0)
        yield
    elif args.taxonomy_shape:
        Category.objects.collection.delete_many({})
        insert_levels(TAXONOMY_LEVELS)
        yield
    else:
        for size in (int(s) for s in args.sizes.split(",")):
            Category.objects.collection.delete_many({})
            insert_tree(*shape(size))
            yield


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--taxonomy", metavar="FILE", help="import this Google taxonomy file instead")
    parser.add_argument("--taxonomy-shape", action="store_true",
                        help="a generated tree of the Google taxonomy's size and depth instead")
    args = parser.parse_args()

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    call_command("migrate", verbosity=0, interactive=False)
    User = get_user_model()
    User.objects.filter(username="bench").delete()
    user = User.objects.create_superuser("bench", email="", password="bench-pass-phrase")
    client = Client()
    client.force_login(user)
    print(f"engine: {engine()}")
    print(f"{'categories':>10} {'depth':>5}  {'request':<18} {'round trips':>11}  {'median ms':>9}"
          f"  {'page KB':>7}")
    for _ in trees(args):
        nodes = Category.objects.tree()
        count, depth = len(nodes), max(c.depth for c in nodes) + 1
        term = nodes[-1].name.split()[0]
        for label, path in [
            ("whole tree", "/admin/catalog/category/"),
            (f"search {term!r}", f"/admin/catalog/category/?q={term}"),
        ]:
            trips, seconds, size = measure(client, path, args.repeat)
            print(f"{count:>10} {depth:>5}  {label:<18} {trips:>11}  {seconds * 1000:>9.0f}"
                  f"  {size / 1024:>7.0f}")
    Category.objects.collection.delete_many({})
    user.delete()


if __name__ == "__main__":
    main()
