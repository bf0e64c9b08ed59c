"""The django-oscar side of ``bench/oscar_side_by_side.py``: run inside Oscar's own virtualenv.

Not part of the shop: Oscar is installed from PyPI into a virtualenv of its
own under ``bench/results/`` (Oscar pins other Django apps than ours), and
this script is run there by ``oscar_side_by_side.py``. It configures a
minimal Oscar 4 project in memory (Oscar's ``INSTALLED_APPS`` and default
settings, SQLite, haystack with Whoosh, Django's cached template loaders,
``DEBUG`` off), loads the catalog the shop exported (the same categories,
products, prices and stock), builds the search index, then requests the
given pages through Django's test client, warm, for ``--seconds`` each.

Usage (by ``oscar_side_by_side.py``)::

    <oscar venv>/bin/python bench/oscar_shop.py --workdir DIR --catalog catalog.json \
        --seconds 10 rock:CATEGORY_SLUG product:SKU

Prints one JSON object: ``{"pages": [{"page", "url", "requests_per_second", "mean_ms",
"queries"}], "oscar": version, "products": n}``.
"""

import argparse
import json
import os
import sys
import time
from decimal import Decimal
from pathlib import Path


def configure(workdir):
    """Django settings for a minimal Oscar shop under ``workdir`` (a Path)."""
    import django
    from django.conf import settings

    import oscar
    from oscar.defaults import __dict__ as oscar_defaults

    defaults = {k: v for k, v in oscar_defaults.items() if k.isupper()}
    defaults["OSCAR_DEFAULT_CURRENCY"] = "USD"
    settings.configure(
        **defaults,
        DEBUG=False,
        SECRET_KEY="benchmark-only-secret-key",
        ALLOWED_HOSTS=["testserver"],
        ROOT_URLCONF="oscar_bench_urls",
        INSTALLED_APPS=oscar.INSTALLED_APPS + ["sorl.thumbnail"],
        SITE_ID=1,
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                               "NAME": str(workdir / "oscar.sqlite3")}},
        MIDDLEWARE=[
            "django.middleware.security.SecurityMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
            "oscar.apps.basket.middleware.BasketMiddleware",
            "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
        ],
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [],
            "APP_DIRS": True,
            "OPTIONS": {"context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.template.context_processors.i18n",
                "django.contrib.messages.context_processors.messages",
                "oscar.apps.search.context_processors.search_form",
                "oscar.apps.checkout.context_processors.checkout",
                "oscar.apps.communication.notifications.context_processors.notifications",
                "oscar.core.context_processors.metadata",
            ]},
        }],
        AUTHENTICATION_BACKENDS=["oscar.apps.customer.auth_backends.EmailBackend",
                                 "django.contrib.auth.backends.ModelBackend"],
        HAYSTACK_CONNECTIONS={"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
                                          "PATH": str(workdir / "whoosh_index")}},
        STATIC_URL="/static/",
        MEDIA_ROOT=str(workdir / "media"),
        MEDIA_URL="/media/",
        USE_TZ=True,
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        LOGGING_CONFIG=None,
    )
    sys.modules["oscar_bench_urls"] = type(sys)("oscar_bench_urls")
    django.setup()
    from django.apps import apps
    from django.urls import include, path

    sys.modules["oscar_bench_urls"].urlpatterns = [
        path("i18n/", include("django.conf.urls.i18n")),
        path("", include(apps.get_app_config("oscar").urls[0])),
    ]


def load(catalog):
    """Create Oscar's categories, products, stock records and search index from ``catalog``
    (the shop's export: ``{"categories": [{slug, name, parent}], "products": [{sku, title,
    description, price_cents, categories: [slug], stock}]}``, parents before children)."""
    from django.core.management import call_command
    from oscar.core.loading import get_model

    call_command("migrate", verbosity=0)
    Category = get_model("catalogue", "Category")
    Product = get_model("catalogue", "Product")
    ProductClass = get_model("catalogue", "ProductClass")
    ProductCategory = get_model("catalogue", "ProductCategory")
    Partner = get_model("partner", "Partner")
    StockRecord = get_model("partner", "StockRecord")
    if Product.objects.count() == len(catalog["products"]):
        return  # loaded by an earlier run
    Product.objects.all().delete()
    Category.objects.all().delete()
    nodes = {}
    for row in catalog["categories"]:
        parent = nodes.get(row["parent"])
        fields = {"name": row["name"], "slug": row["slug"]}
        nodes[row["slug"]] = Category.objects.add_child(parent, fields) if parent else Category.objects.add_root(fields)
    album, _ = ProductClass.objects.get_or_create(name="Album", defaults={"track_stock": True})
    partner, _ = Partner.objects.get_or_create(name="Chinook Records")
    for row in catalog["products"]:
        product = Product.objects.create(title=row["title"], upc=row["sku"], product_class=album,
                                         description=row["description"], is_public=True)
        for slug in row["categories"]:
            if slug in nodes:
                ProductCategory.objects.create(product=product, category=nodes[slug])
        StockRecord.objects.create(product=product, partner=partner, partner_sku=row["sku"],
                                   price_currency="USD", price=Decimal(row["price_cents"]) / 100,
                                   num_in_stock=row["stock"])
    call_command("rebuild_index", interactive=False, verbosity=0)


def page_url(kind, key):
    """The URL of the Rock-like category page (``kind`` "category", ``key`` its slug) or of
    a product page (``kind`` "product", ``key`` its SKU, Oscar's UPC)."""
    from oscar.core.loading import get_model

    if kind == "category":
        return get_model("catalogue", "Category").objects.get(slug=key).get_absolute_url()
    return get_model("catalogue", "Product").objects.get(upc=key).get_absolute_url()


def measure(url, seconds):
    """``(requests/s, mean ms, SQL queries of one request)`` of ``url``, warm."""
    from django.db import connection
    from django.test import Client

    client = Client()
    for _ in range(3):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    queries = []
    with connection.execute_wrapper(lambda execute, sql, *rest: queries.append(sql) or execute(sql, *rest)):
        client.get(url)
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        client.get(url)
        count += 1
    elapsed = time.perf_counter() - started
    return count / elapsed, 1000 * elapsed / count, len(queries)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("pages", nargs="+", help="label=category:SLUG or label=product:SKU")
    args = parser.parse_args()
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    catalog = json.loads(Path(args.catalog).read_text())
    os.chdir(workdir)
    configure(workdir)
    load(catalog)
    import oscar

    pages = []
    for spec in args.pages:
        label, _, target = spec.partition("=")
        kind, _, key = target.partition(":")
        url = page_url(kind, key)
        rps, ms, queries = measure(url, args.seconds)
        pages.append({"page": label, "url": url, "requests_per_second": rps, "mean_ms": ms,
                      "queries": queries})
    print(json.dumps({"oscar": oscar.get_version(), "products": len(catalog["products"]),
                      "pages": pages}))


if __name__ == "__main__":
    main()
