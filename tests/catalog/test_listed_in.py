"""``Product.listed_in``: a product's categories and all their ancestors, so that a category
page's products are one equality. Kept by the ORM's save, ``Product.writes.sync``
and ``Category.writes.move``; filled in for stored products by migration 0008."""

from django.test import Client

from catalog.store.backfills import fill_listed_in
from catalog.models import Category, Pricing, Product
from core import mongo
from core.mongo.counter import count_operations
from tests.support.products import make_product


def stored_listed_in(sku):
    return mongo.get_collection("products").find_one({"sku": sku})["listed_in"]


def test_save_lists_a_product_in_its_categories_and_their_ancestors(make_tree):
    tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    make_product("Two homes", categories=[tree["Metal"].pk, tree["Jazz"].pk], sku="TWO")
    assert stored_listed_in("TWO") == [tree["Music"].pk, tree["Rock"].pk, tree["Metal"].pk,
                                       tree["Jazz"].pk]


def test_sync_lists_products_like_save(make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    Product.writes.sync([Product(sku="S-1", type="Audio Album", title="Synced",
                                  categories=[tree["Rock"].pk],
                                  pricing=Pricing.from_prices(1000, 900))])
    assert stored_listed_in("S-1") == [tree["Music"].pk, tree["Rock"].pk]


def test_a_move_relists_the_products_below_and_keeps_their_other_categories(make_tree):
    tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}, "Video": {}})
    make_product("Metal only", categories=[tree["Metal"].pk], sku="M")
    make_product("Metal and Jazz", categories=[tree["Metal"].pk, tree["Jazz"].pk], sku="MJ")
    make_product("Jazz only", categories=[tree["Jazz"].pk], sku="J")
    with count_operations() as ops:
        Category.writes.move(tree["Rock"], tree["Video"])
    # 3 reads and the tree's write as before; the products' category lists, their
    # categories' ancestors, the products with variants (their ``variant_in``), one bulk write
    # between the mark of the categories above (before and after) and their recount (a read
    # and a write); the version's bump.
    assert (ops.reads, ops.writes) == (7, 5), ops.operations
    video, music = tree["Video"].pk, tree["Music"].pk
    rock, metal, jazz = tree["Rock"].pk, tree["Metal"].pk, tree["Jazz"].pk
    assert stored_listed_in("M") == [video, rock, metal]
    assert stored_listed_in("MJ") == [video, rock, metal, music, jazz]
    assert stored_listed_in("J") == [music, jazz]
    client = Client()
    assert client.get("/c/video/").context["page"].paginator.count == 2
    assert client.get("/c/music/").context["page"].paginator.count == 2  # MJ and J


def test_the_backfill_fills_products_stored_without_it(make_tree):
    tree = make_tree({"Music": {"Rock": {}}})
    make_product("Old", categories=[tree["Rock"].pk], sku="OLD")
    make_product("Nowhere", sku="NOWHERE")
    mongo.get_collection("products").update_many({}, {"$unset": {"listed_in": ""}})
    assert fill_listed_in() == 2
    assert stored_listed_in("OLD") == [tree["Music"].pk, tree["Rock"].pk]
    assert stored_listed_in("NOWHERE") == []
    assert fill_listed_in() == 0


def test_a_category_page_reads_its_subtree_as_one_equality(make_tree):
    tree = make_tree({"Music": {"Rock": {"Metal": {}}}})
    make_product("Deep", categories=[tree["Metal"].pk])
    listing = Product.listings.listing([tree["Music"].pk])
    assert listing.match == {"listed_in": tree["Music"].pk}
    assert listing.count() == 1
    scan = index_scan(listing.explain()["queryPlanner"]["winningPlan"])
    # Any index led by ``listed_in`` serves the equality: ``listed_in_issue_date``, or a
    # facet's ``listed_in`` index once ``ensure_indexes`` has made them (the planner's choice).
    assert scan and list(scan["keyPattern"])[0] == "listed_in", scan


def index_scan(stage):
    """The IXSCAN stage of an explain's winning plan (a dict), or None for a collection scan."""
    while stage is not None and stage.get("stage") != "IXSCAN":
        stage = stage.get("inputStage")
    return stage
