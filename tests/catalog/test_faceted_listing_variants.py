"""A category page narrowed by one value of a variant attribute (``?format=Vinyl``) reads its
products on ``variant_in`` (each category a product is listed in paired with each value of its
variants' options: ``catalog.products.variants.variant_in``), not every product of the
category; ``variant_in`` follows every write of a product's categories or variants (its save,
the imports' variants, a move of its category); a faceted page's cards are keyed by the
products they show, so an edit of another product leaves them warm."""

from django.core.cache import caches
from django.test import Client

from catalog.models import CatalogVersion, Category, Product
from catalog.products.variants import variant_in, variant_key
from catalog.transfer.chinook import format_variants
from core.mongo import get_collection
from core.mongo.counter import count_operations
from inventory.models import Inventory
from tests.catalog.test_faceted_listing import PAGE_SIZE, catalog, cold  # noqa: F401 (fixture)
from tests.support.examined import documents_examined
from tests.support.products import make_product


def stored_variant_in(sku):
    return get_collection("products").find_one({"sku": sku}, {"variant_in": 1}).get("variant_in", [])


def with_formats(title, categories, year=2020):
    product = make_product(title, categories=categories, year=year)
    product.variants = format_variants(product.sku, product.pricing)
    product.save()
    Inventory.objects.ensure_stock([v.sku for v in product.variants], 3)
    return product


def test_a_format_is_read_from_the_categories_paired_with_the_options(catalog, made_facet_indexes):  # noqa: F811
    top = catalog["top"]
    listed = get_collection("products").count_documents({"listed_in": top.pk})
    held = get_collection("products").count_documents({"listed_in": top.pk, "variants.options.format": "Vinyl"})
    assert 0 < held < listed / 4
    cold("/c/top-0/")  # the kept counts written
    ops = cold("/c/top-0/?format=Vinyl")
    # the page's products (those holding the value, twice: the order, then its cards) and the
    # in-stock count's sold-out few; before, the windows passed over the category's products
    sold = len(Product.facets.sold_out_skus())
    assert documents_examined(ops, "products") <= 2 * held + 2 * sold + PAGE_SIZE, ops.operations


def test_variant_in_follows_saves_imports_and_moves(make_tree, client):
    made = make_tree({"Music": {"Rock": {}}, "Archive": {}})
    rock, music, archive = made["Rock"], made["Music"], made["Archive"]
    album = with_formats("Both", [rock.pk])
    assert stored_variant_in(album.sku) == sorted(
        variant_key(c, "format", v) for c in (music.pk, rock.pk) for v in ("CD", "Vinyl"))
    plain = make_product("Plain", categories=[rock.pk])
    assert stored_variant_in(plain.sku) == []
    # an import of a variant with another value
    Product.imports.import_variants([(album.sku, {"sku": f"{album.sku}-CS", "options": {"format": "Cassette"},
                                                  "pricing": {"list": 900, "retail": 900, "savings": 0,
                                                              "pct_savings": 0}})])
    assert variant_key(rock.pk, "format", "Cassette") in stored_variant_in(album.sku)
    # its category moved under another: paired with the new ancestors
    Category.writes.move(Category.objects.get(pk=rock.pk), Category.objects.get(pk=archive.pk))
    stored = get_collection("products").find_one({"sku": album.sku})
    assert stored_variant_in(album.sku) == variant_in(stored["listed_in"], stored["variants"])
    assert variant_key(archive.pk, "format", "Vinyl") in stored_variant_in(album.sku)
    assert not any(key.startswith(f"{music.pk}:") for key in stored_variant_in(album.sku))
    caches["default"].clear()
    assert [p.sku for p in client.get("/c/archive/", {"format": "Vinyl"}).context["page"]] == [album.sku]
    assert list(client.get("/c/music/", {"format": "Vinyl"}).context["page"]) == []
    # a save that drops the variants drops the pairs
    product = Product.objects.get(sku=album.sku)
    product.variants = []
    product.save()
    assert stored_variant_in(album.sku) == []
    assert not client.get("/c/archive/", {"format": "Vinyl"}).context["facets"].chosen  # no vinyl left


def test_an_edit_of_a_product_not_shown_leaves_a_faceted_page_s_cards_warm(make_tree, client):
    made = make_tree({"Music": {"Rock": {}}})
    rock = made["Rock"]
    shown = with_formats("Shown", [rock.pk], year=2021)
    other = make_product("Other", categories=[rock.pk], year=2019)
    url = "/c/rock/?format=Vinyl"
    assert [p.sku for p in client.get(url).context["page"]] == [shown.sku]
    product = Product.objects.get(sku=other.sku)
    product.title = "Other, renamed"  # its card changes, not what the facets count
    product.save()
    with count_operations() as ops:
        response = client.get(url)
    assert [p.sku for p in response.context["page"]] == [shown.sku]
    by_id = [command for (name, op), command in zip(ops.operations, ops.commands)
             if name == "products" and op == "find" and "_id" in repr((command or {}).get("filter"))]
    assert by_id == [], ops.operations  # its cards kept (keyed by cards:<id> before: read again)
    # an edit of the product shown shows on the next request
    product = Product.objects.get(sku=shown.sku)
    product.title = "Shown, renamed"
    product.save()
    assert [p.title for p in client.get(url).context["page"]] == ["Shown, renamed"]


def test_a_faceted_first_page_reads_from_where_it_ended(catalog, made_facet_indexes):  # noqa: F811
    url = "/c/top-0/?price=10-20"
    cold("/c/top-0/")  # the kept counts written
    first = cold(url)  # its windows from 90 days before now, 4 times further back each time

    def windows(ops):
        return [c for (name, op), c in zip(ops.operations, ops.commands)
                if name == "products" and op == "aggregate" and "$sort" in repr(c)]

    assert len(windows(first)) > 1, first.operations
    again = cold(url)
    assert len(windows(again)) == 1, again.operations  # one window, from where it ended
    skus = [p.sku for p in Client().get(url).context["page"]]
    plain = get_collection("products").find(
        {"listed_in": catalog["top"].pk, "pricing.retail": {"$gte": 1000, "$lt": 2000}}, {"sku": 1})
    assert skus == [d["sku"] for d in plain.sort([("details.issue_date", -1), ("_id", 1)]).limit(PAGE_SIZE)]
