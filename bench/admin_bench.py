"""Benchmark of the category changelist in the admin: round trips and time against the tree's size.

Run by hand (not a test)::

    python bench/admin_bench.py [--sizes 1000,5000,20000] [--repeat 5]

Uses the engine the settings choose: the embedded engine by default, a real
server with MONGODB_URI (then it works in a database named ``shop_bench``
that it empties first). For each size it stores a tree of that many
categories (three levels), then requests ``/admin/catalog/category/`` (page
1 and the last page) and a search, as a logged-in superuser, through
Django's test client. Prints, per request, the database round trips (the
same at every size) and the median wall time of ``--repeat`` requests.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("MONGODB_NAME", "shop_bench")
os.environ.setdefault("SHOP_LOAD_DEMO_CATALOG", "0")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from catalog.models import Category  # noqa: E402
from shop.mongo import engine  # noqa: E402
from shop.mongo.counter import count_operations  # noqa: E402
from tests.tree_check import insert_tree  # noqa: E402


def shape(size):
    """(roots, children, grandchildren) giving about ``size`` categories."""
    roots = children = max(int(round(size ** (1 / 3))), 1)
    grandchildren = max(size // (roots * children) - 1, 1)
    return roots, children, grandchildren


def measure(client, path, repeat):
    with count_operations() as ops:
        response = client.get(path)
    assert response.status_code == 200, response.status_code
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(path)
        times.append(time.perf_counter() - start)
    return ops.total, statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    call_command("migrate", verbosity=0, interactive=False)
    User = get_user_model()
    User.objects.filter(username="bench").delete()
    user = User.objects.create_superuser("bench", email="", password="bench-pass-phrase")
    client = Client()
    client.force_login(user)
    print(f"engine: {engine()}")
    print(f"{'categories':>10}  {'request':<22} {'round trips':>11}  {'median ms':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        Category.objects.collection.delete_many({})
        count = insert_tree(*shape(size))
        last_page = (count + 99) // 100
        for label, path in [
            ("page 1", "/admin/catalog/category/"),
            (f"page {last_page}", f"/admin/catalog/category/?p={last_page}"),
            ("search 'Leaf 01'", "/admin/catalog/category/?q=Leaf+01"),
        ]:
            trips, seconds = measure(client, path, args.repeat)
            print(f"{count:>10}  {label:<22} {trips:>11}  {seconds * 1000:>9.0f}")
    Category.objects.collection.delete_many({})
    user.delete()


if __name__ == "__main__":
    main()
