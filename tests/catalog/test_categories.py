"""The "Category Hierarchy" use case's on CategoryManager: root-first ancestors kept right."""


import pytest

from catalog.exceptions import CatalogError, CategoryNotEmpty, InvalidMove, SlugTaken
from catalog.models import Category, Pricing, Product
from core import mongo
from core.mongo.counter import count_operations
from tests.support.threads import run_many


def stored(slug):
    """The raw stored document of a category."""
    return mongo.get_collection("categories").find_one({"slug": slug})


def crumb_names(slug):
    return [crumb["name"] for crumb in Category.objects.breadcrumbs(slug)]


def snapshot():
    return sorted(mongo.get_collection("categories").find({}), key=lambda d: d["slug"])


def chain(make_tree, depth, prefix="Level"):
    """A chain of ``depth`` nested categories: Level 1 > Level 2 > ..."""
    spec = {}
    node = spec
    for level in range(1, depth + 1):
        node[f"{prefix} {level}"] = {}
        node = node[f"{prefix} {level}"]
    return make_tree(spec)


def test_create_stores_root_first_ancestors(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {}}}})
    document = stored("metal")
    assert [a["name"] for a in document["ancestors"]] == ["Music", "Rock"]
    assert [a["_id"] for a in document["ancestors"]] == [made["Music"].pk, made["Rock"].pk]
    assert [a["slug"] for a in document["ancestors"]] == ["music", "rock"]
    assert document["parent_id"] == made["Rock"].pk
    assert stored("music")["ancestors"] == [] and stored("music")["parent_id"] is None


def test_create_reads_only_the_parent(make_tree):
    made = chain(make_tree, 5)
    with count_operations() as ops:
        Category.writes.create_category("Leaf", parent=made["Level 5"])
    # The parent, the slugs already taken, the insert; then the catalog version's bump.
    assert ops.total == 4 and ops.writes == 2
    assert ops.operations[-1] == ("catalog_versions", "update")


def test_slugs_come_from_names_and_collisions_get_a_number(make_tree):
    made = make_tree({"Music": {"Alternative": {}}, "Video": {}})
    second = Category.writes.create_category("Alternative", parent=made["Video"])
    third = Category.writes.create_category("alternative")
    assert made["Alternative"].slug == "alternative"
    assert (second.slug, third.slug) == ("alternative-2", "alternative-3")
    assert Category.writes.create_category("R&B/Soul").slug == "r-b-soul"


def test_concurrent_creates_never_share_a_slug():
    run_many(lambda _number: Category.writes.create_category("Jazz"), 8)
    slugs = [d["slug"] for d in mongo.get_collection("categories").find({})]
    assert len(slugs) == len(set(slugs)) == 8


def test_create_refuses_an_empty_name_and_an_unknown_parent():
    with pytest.raises(CatalogError):
        Category.writes.create_category("   ")
    with pytest.raises(Category.DoesNotExist):
        Category.writes.create_category("Orphan", parent="0123456789ab0123456789ab")
    assert mongo.get_collection("categories").count_documents({}) == 0


def test_breadcrumbs_come_from_one_query(make_tree):
    chain(make_tree, 6)
    with count_operations() as ops:
        crumbs = Category.objects.breadcrumbs("level-6")
    assert ops.total == 1
    assert [c["name"] for c in crumbs] == [f"Level {n}" for n in range(1, 7)]
    assert crumbs[0] == {"name": "Level 1", "slug": "level-1"}


def test_get_by_slug_is_one_read_and_unknown_slugs_raise(make_tree):
    make_tree({"Music": {"Rock": {}}})
    with count_operations() as ops:
        rock = Category.objects.get_by_slug("rock")
    assert ops.total == 1
    assert [a.name for a in rock.ancestors] == ["Music"]
    with pytest.raises(Category.DoesNotExist):
        Category.objects.get_by_slug("nope")
    with pytest.raises(Category.DoesNotExist):
        Category.objects.breadcrumbs({"$ne": 1})


def test_children_and_descendants(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {"Heavy Metal": {}}, "Punk": {}}, "Jazz": {}}})
    # Siblings in the order they were added (their position).
    assert [c.name for c in Category.objects.children(made["Music"])] == ["Rock", "Jazz"]
    assert [c.name for c in Category.objects.descendants(made["Rock"])] == [
        "Metal", "Heavy Metal", "Punk"
    ]
    assert Category.objects.descendants(made["Heavy Metal"]) == []


def test_tree_is_in_depth_first_order(make_tree):
    make_tree({"Video": {"TV": {}}, "Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    # Siblings by position: the order they were added in.
    assert [c.name for c in Category.objects.tree()] == ["Video", "TV", "Music", "Rock", "Metal", "Jazz"]
    assert [c.name for c in Category.objects.tree(max_depth=1)] == ["Video", "TV", "Music", "Rock", "Jazz"]


def test_rename_updates_every_descendants_breadcrumbs(make_tree):
    made = chain(make_tree, 8)
    Category.writes.rename(made["Level 2"], "Second")
    for level in range(3, 9):
        assert crumb_names(f"level-{level}")[1] == "Second"
    assert crumb_names("level-8") == ["Level 1", "Second", *[f"Level {n}" for n in range(3, 9)]]
    assert stored("level-2")["name"] == "Second"


@pytest.mark.parametrize("depth", [3, 12])
def test_rename_costs_two_writes_whatever_the_subtree(make_tree, depth):
    made = chain(make_tree, depth)
    with count_operations() as ops:
        Category.writes.rename(made["Level 1"], "Top")
    assert (ops.total, ops.writes) == (3, 3)  # and the catalog version's bump
    assert ops.operations[-1] == ("catalog_versions", "update")


def test_rename_with_a_new_slug_updates_the_descendants_links(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {}}}})
    Category.writes.rename(made["Rock"], "Rock Music", slug="rock-music")
    assert Category.objects.breadcrumbs("metal")[1] == {"name": "Rock Music", "slug": "rock-music"}
    assert stored("rock") is None and stored("rock-music")["name"] == "Rock Music"


def test_rename_to_a_taken_slug_changes_nothing(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    before = snapshot()
    with pytest.raises(SlugTaken):
        Category.writes.rename(made["Rock"], "Jazz", slug="jazz")
    with pytest.raises(CatalogError):
        Category.writes.rename(made["Rock"], "")
    assert snapshot() == before


def test_move_rebuilds_the_whole_subtree(make_tree):
    made = make_tree({
        "Music": {"Rock": {"Metal": {"Heavy Metal": {"Doom": {}}}, "Punk": {}}},
        "Video": {"Concerts": {}},
    })
    Category.writes.move(made["Rock"], made["Concerts"])
    assert crumb_names("rock") == ["Video", "Concerts", "Rock"]
    assert crumb_names("doom") == ["Video", "Concerts", "Rock", "Metal", "Heavy Metal", "Doom"]
    assert crumb_names("punk") == ["Video", "Concerts", "Rock", "Punk"]
    assert stored("rock")["parent_id"] == made["Concerts"].pk
    # Parents of the descendants are unchanged.
    assert stored("metal")["parent_id"] == made["Rock"].pk
    assert [c.name for c in Category.objects.descendants(made["Music"])] == []
    ids = [a["_id"] for a in stored("doom")["ancestors"]]
    assert ids == [made[n].pk for n in ["Video", "Concerts", "Rock", "Metal", "Heavy Metal"]]


def test_move_to_the_top_and_back(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {}}}})
    Category.writes.move(made["Rock"], None)
    assert crumb_names("metal") == ["Rock", "Metal"]
    assert stored("rock")["parent_id"] is None
    Category.writes.move(made["Rock"], made["Music"])
    assert crumb_names("metal") == ["Music", "Rock", "Metal"]


def test_move_writes_once_whatever_the_subtree(make_tree):
    made = make_tree({"Music": {"Rock": {"A": {"B": {"C": {}}}, "D": {}}}, "Video": {}})
    with count_operations() as ops:
        Category.writes.move(made["Rock"], made["Video"])
    assert ops.writes == 2  # the bulk write, then the catalog version's bump
    assert ops.operations[-1] == ("catalog_versions", "update")
    # The node, the new parent, the subtree: each read once; the products listed below it
    # (none here: nothing more to rewrite).
    assert ops.reads == 4


@pytest.mark.parametrize("target", ["Rock", "Metal", "Doom"])
def test_move_under_itself_or_a_descendant_is_refused_and_changes_nothing(make_tree, target):
    made = make_tree({"Music": {"Rock": {"Metal": {"Doom": {}}}}})
    before = snapshot()
    with pytest.raises(InvalidMove):
        Category.writes.move(made["Rock"], made[target])
    assert snapshot() == before


def names_under(parent):
    return [c.name for c in Category.objects.children(parent)]


def positions_under(parent_id):
    """The stored positions of the children of ``parent_id``, by name."""
    cursor = mongo.get_collection("categories").find({"parent_id": parent_id})
    return {d["name"]: d["position"] for d in cursor}


def test_a_new_category_comes_last_among_its_siblings(make_tree):
    made = make_tree({"Music": {"Rock": {}, "Jazz": {}}})
    Category.writes.create_category("Blues", parent=made["Music"])
    assert positions_under(made["Music"].pk) == {"Rock": 0, "Jazz": 1, "Blues": 2}
    assert names_under(made["Music"]) == ["Rock", "Jazz", "Blues"]
    Category.writes.create_category("Audio Books")
    assert [c.name for c in Category.objects.top_level()] == ["Music", "Audio Books"]


@pytest.mark.parametrize("where, expected", [
    ("before", ["Rock", "Blues", "Jazz", "Soul"]),
    ("after", ["Rock", "Jazz", "Blues", "Soul"]),
])
def test_move_before_or_after_a_sibling_renumbers_the_siblings(make_tree, where, expected):
    made = make_tree({"Music": {"Rock": {}, "Jazz": {}, "Soul": {}}, "Video": {"Blues": {"Delta": {}}}})
    with count_operations() as ops:
        Category.writes.move(made["Blues"], made["Jazz"], where)
    # As a move inside: the node, the target, the subtree with the new siblings, the
    # products below it (none), one write; then the catalog version's bump.
    assert (ops.reads, ops.writes) == (4, 2)
    assert names_under(made["Music"]) == expected
    assert sorted(positions_under(made["Music"].pk).values()) == [0, 1, 2, 3]
    assert crumb_names("delta") == ["Music", "Blues", "Delta"]
    assert stored("blues")["parent_id"] == made["Music"].pk
    assert names_under(made["Video"]) == []


def test_move_within_the_same_parent_reorders(make_tree):
    made = make_tree({"Music": {"Rock": {}, "Jazz": {}, "Soul": {}}})
    Category.writes.move(made["Soul"], made["Rock"], "before")
    assert names_under(made["Music"]) == ["Soul", "Rock", "Jazz"]
    Category.writes.move(made["Soul"], made["Jazz"], "after")
    assert names_under(made["Music"]) == ["Rock", "Jazz", "Soul"]
    Category.writes.move(made["Rock"], made["Music"])  # inside: last
    assert names_under(made["Music"]) == ["Jazz", "Soul", "Rock"]
    assert positions_under(made["Music"].pk) == {"Jazz": 0, "Soul": 1, "Rock": 2}
    before = snapshot()
    Category.writes.move(made["Rock"], made["Rock"], "after")  # next to itself: nothing
    assert snapshot() == before


def test_move_next_to_a_descendant_is_refused_and_changes_nothing(make_tree):
    made = make_tree({"Music": {"Rock": {"Metal": {"Doom": {}}}}})
    before = snapshot()
    for target in ("Metal", "Doom"):
        with pytest.raises(InvalidMove, match="own subcategories"):
            Category.writes.move(made["Rock"], made[target], "before")
    with pytest.raises(CatalogError):
        Category.writes.move(made["Rock"], made["Music"], "beside")
    with pytest.raises(CatalogError):
        Category.writes.move(made["Rock"], None, "after")
    assert snapshot() == before


def test_the_storefront_lists_subcategories_in_sibling_order(client, make_tree):
    made = make_tree({"Music": {"Rock": {}, "Jazz": {}}, "Video": {}})
    Category.writes.move(made["Jazz"], made["Rock"], "before")
    Category.writes.move(made["Video"], made["Music"], "before")
    assert [c.name for c in client.get("/c/music/").context["subcategories"]] == ["Jazz", "Rock"]
    home = client.get("/").context["top_categories"]
    assert [c.name for c in home] == ["Video", "Music"]
    assert [c.name for c in home[1].subcategories] == ["Jazz", "Rock"]
    nav = client.get("/c/rock/").content.decode()
    assert nav.index('href="/c/video/"') < nav.index('href="/c/music/"')


def test_create_many_places_new_categories_after_the_siblings_there(make_tree):
    from bson import ObjectId

    made = make_tree({"Music": {"Rock": {}}})
    blues, soul, deep = ObjectId(), ObjectId(), ObjectId()
    Category.writes.create_many([
        {"_id": blues, "name": "Blues", "parent": made["Music"].pk},
        {"_id": soul, "name": "Soul", "parent": made["Music"].pk},
        {"_id": deep, "name": "Deep Soul", "parent": soul},
        {"_id": ObjectId(), "name": "Audio Books", "parent": None},
    ])
    assert positions_under(made["Music"].pk) == {"Rock": 0, "Blues": 1, "Soul": 2}
    assert positions_under(soul) == {"Deep Soul": 0}
    assert positions_under(None) == {"Music": 0, "Audio Books": 1}


def test_the_migration_numbers_siblings_by_name():
    from catalog.store.backfills import number_siblings_by_name

    collection = mongo.get_collection("categories")
    collection.insert_many([{"name": n, "slug": n.lower(), "parent_id": None, "ancestors": []}
                            for n in ("Video", "audio", "Music")])
    assert number_siblings_by_name() == 3
    assert [c.name for c in Category.objects.top_level()] == ["audio", "Music", "Video"]
    assert number_siblings_by_name() == 0


def test_delete_is_refused_while_the_category_has_children_or_products(make_tree):
    made = make_tree({"Music": {"Rock": {}}, "Jazz": {}})
    with pytest.raises(CategoryNotEmpty, match="subcategories"):
        Category.writes.delete_category(made["Music"])
    Product.objects.create(sku="J-1", type="Audio Album", title="Kind of Blue",
                           categories=[made["Jazz"].pk], pricing=Pricing.from_prices(999, 999))
    with pytest.raises(CategoryNotEmpty, match="products"):
        Category.writes.delete_category(made["Jazz"])
    assert mongo.get_collection("categories").count_documents({}) == 3
    Category.writes.delete_category(made["Rock"])
    Category.writes.delete_category(made["Music"])
    assert [d["slug"] for d in mongo.get_collection("categories").find({})] == ["jazz"]
