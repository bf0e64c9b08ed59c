"""The category tree in the admin: changelist, add, rename, slug change, move, delete, refusals.

Every save goes through ``Category.writes``; after each kind of save the
ancestors of every category still follow the parent links (``wrong_ancestors``).
"""

import re

import pytest
from bson import ObjectId
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry

from catalog.exceptions import SlugTaken
from catalog.models import Category, Pricing, Product
from core.mongo.counter import count_operations
from tests.support.tree import insert_tree, wrong_ancestors

CHANGELIST = "/admin/catalog/category/"


def change_url(category):
    return f"/admin/catalog/category/{category.pk}/change/"


def delete_url(category):
    return f"/admin/catalog/category/{category.pk}/delete/"


def row_slug(response):
    """The slug of the changelist's first row."""
    return re.search(r'<td class="field-slug">([^<]*)</td>', response.content.decode()).group(1)


def row_names(response):
    """The category names of the changelist's rows, in order."""
    return re.findall(r'<a class="tree-label" href="[^"]*">([^<]*)</a>', response.content.decode())


def reload(category):
    return Category.objects.get(pk=category.pk)


def log_entries(action_flag):
    return list(LogEntry.objects.filter(action_flag=action_flag))


@pytest.fixture
def tree(make_tree):
    return make_tree({
        "Music": {"Rock": {"Metal": {"Heavy Metal": {}}, "Punk": {}}, "Jazz": {}},
        "Video": {"Drama": {}},
    })


def form_data(category, **changes):
    data = {"name": category.name, "slug": category.slug,
            "parent": str(category.parent_id) if category.parent_id else ""}
    data.update(changes)
    return data


# -- changelist ---------------------------------------------------------------

def test_changelist_shows_the_tree_indented_in_tree_order_with_product_counts(admin_client, tree):
    Product.objects.create(sku="A-1", type="Film", title="One", categories=[tree["Metal"].pk],
                           pricing=Pricing.from_prices(1000, 900))
    Product.objects.create(sku="A-2", type="Film", title="Two",
                           categories=[tree["Metal"].pk, tree["Jazz"].pk],
                           pricing=Pricing.from_prices(1000, 900))
    Product.objects.create(sku="A-3", type="Film", title="Three",
                           categories=[tree["Metal"].pk, tree["Heavy Metal"].pk],
                           pricing=Pricing.from_prices(1000, 900))
    response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    # Tree order, siblings by position (the order make_tree added them).
    assert row_names(response) == ["Music", "Rock", "Metal", "Heavy Metal", "Punk", "Jazz",
                                   "Video", "Drama"]
    html = response.content.decode()
    assert "style=" not in html.split('id="result_list"')[1]  # indented by the stylesheet (CSP)
    assert re.search(rf'class="tree-node tree-depth-3" data-node="{tree["Heavy Metal"].pk}" '
                     rf'data-parent="{tree["Metal"].pk}" data-depth="3"', html)
    assert "shop/admin/category_tree.css" in html and "shop/admin/category_tree.js" in html
    own = dict(zip(row_names(response), re.findall(r'<td class="field-product_count">(\d+)</td>', html)))
    subtree = dict(zip(row_names(response),
                       re.findall(r'<td class="field-subtree_count"><a [^>]*>(\d+)</a></td>', html)))
    assert own == {"Music": "0", "Rock": "0", "Metal": "3", "Heavy Metal": "1", "Punk": "0",
                   "Jazz": "1", "Video": "0", "Drama": "0"}
    # Each product once per subtree: A-3 is in Metal and Heavy Metal, A-2 in Metal and Jazz.
    assert subtree == {"Music": "3", "Rock": "3", "Metal": "3", "Heavy Metal": "1", "Punk": "0",
                       "Jazz": "1", "Video": "0", "Drama": "0"}
    assert f'?category={tree["Rock"].pk}">3</a>' in html
    # Toggles on the nodes with children only.
    assert html.count('class="tree-toggle"') == 4  # Music, Rock, Metal, Video


def test_subtree_counts_match_the_storefront_on_the_chinook_catalog(admin_client, chinook, client):
    html = admin_client.get(CHANGELIST).content.decode()
    subtree = dict(zip(re.findall(r'<a class="tree-label" href="[^"]*">([^<]*)</a>', html),
                       re.findall(r'<td class="field-subtree_count"><a [^>]*>(\d+)</a></td>', html)))
    for slug, name in (("music", "Music"), ("rock", "Rock"), ("video", "Video")):
        listed = client.get(f"/c/{slug}/").context["page"].paginator.count
        assert int(subtree[name]) == listed, name
    assert subtree["Rock"] == "180"


def test_changelist_search_opens_the_path_to_each_match(admin_client, tree):
    response = admin_client.get(CHANGELIST, {"q": "METAL"})
    assert row_names(response) == ["Music", "Rock", "Metal", "Heavy Metal"]
    html = response.content.decode()
    matched = re.findall(r'class="tree-node tree-depth-\d tree-match" data-node="([^"]+)"', html)
    assert matched == [str(tree["Metal"].pk), str(tree["Heavy Metal"].pk)]
    assert 'data-searching="1"' in html
    assert "1 result" not in html  # 2 results of 8
    assert "2 results" in html


def test_changelist_search_with_regex_characters_is_plain_text(admin_client, tree):
    response = admin_client.get(CHANGELIST, {"q": ".*"})
    assert response.status_code == 200
    assert row_names(response) == []


@pytest.mark.parametrize("size, shape", [(30, (2, 2, 6)), (5_000, (10, 10, 49))])
def test_changelist_costs_the_same_round_trips_for_30_and_5000_categories(admin_client, size, shape):
    roots, children, leaves = shape
    assert insert_tree(roots, children, leaves) == roots * (1 + children * (1 + leaves)) >= size
    with count_operations() as whole:
        response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    # The whole tree on one page.
    assert len(row_names(response)) == roots * (1 + children * (1 + leaves))
    with count_operations() as searched:
        response = admin_client.get(CHANGELIST, {"q": "Leaf 01.01"})
    assert row_names(response)[:2] == ["Root 01", "Child 01.01"] and len(row_names(response)) == 2 + leaves
    # The session (server-side), the user, the tree (one read), the product counts
    # (one aggregation).
    assert commands(whole) == commands(searched) == [
        ("django_session", "aggregate"), ("auth_user", "aggregate"), ("categories", "find"),
        ("products", "aggregate")], whole
    # On a server, 5,000 categories come in two batches (101, then up to 16 MiB).
    assert [op for _, op in whole.operations].count("getMore") <= 1
    if size < 5_000:
        return
    # The forms offer the whole tree as parents, from one read too.
    leaf = Category.objects.get_by_slug(row_slug(response))
    with count_operations() as change_form:
        response = admin_client.get(change_url(leaf))
    assert response.status_code == 200
    # Parent and "Place before": each the tree and its empty choice, from the same read.
    assert response.content.decode().count("<option") == 2 * 5011
    # The category, then the tree (the user and, uncached, the content type come besides).
    assert [op for op in commands(change_form) if op[0] == "categories"] == [
        ("categories", "aggregate"), ("categories", "find")], change_form


def commands(ops):
    """The operations counted, without a server's ``getMore`` (the next batch of a large read).

    A read of more than 101 documents also costs one ``getMore`` per further
    batch, which depends on the batch size, not on the page.
    """
    return [operation for operation in ops.operations if operation[1] != "getMore"]


def test_changelist_offers_no_bulk_delete(admin_client, tree):
    response = admin_client.get(CHANGELIST)
    assert "delete_selected" not in response.content.decode()
    response = admin_client.post(CHANGELIST, {"action": "delete_selected",
                                              "_selected_action": [str(tree["Jazz"].pk)]})
    assert Category.objects.filter(pk=tree["Jazz"].pk).exists()


# -- add ----------------------------------------------------------------------

def test_add_under_a_parent_through_the_manager(admin_client, tree):
    response = admin_client.post("/admin/catalog/category/add/",
                                 {"name": "Thrash", "slug": "", "parent": str(tree["Metal"].pk)})
    assert response.status_code == 302
    thrash = Category.objects.get_by_slug("thrash")
    assert [a.name for a in thrash.ancestors] == ["Music", "Rock", "Metal"]
    assert thrash.parent_id == tree["Metal"].pk
    assert wrong_ancestors() == {}
    (entry,) = log_entries(ADDITION)
    assert entry.object_id == str(thrash.pk) and entry.object_repr == "Thrash"


def test_add_a_top_category_with_a_chosen_slug(admin_client, tree):
    response = admin_client.post("/admin/catalog/category/add/",
                                 {"name": "Books", "slug": "Printed_Books", "parent": ""})
    assert response.status_code == 302
    books = Category.objects.get_by_slug("printed-books")
    assert books.ancestors == [] and books.parent_id is None
    assert wrong_ancestors() == {}


def test_add_with_a_taken_slug_is_a_form_error(admin_client, tree):
    before = Category.objects.count()
    response = admin_client.post("/admin/catalog/category/add/",
                                 {"name": "Rock again", "slug": "rock", "parent": ""})
    assert response.status_code == 200
    assert "Category with this Slug already exists." in response.content.decode()
    assert Category.objects.count() == before
    assert log_entries(ADDITION) == []


def test_add_under_an_unknown_parent_is_a_form_error(admin_client, tree):
    before = Category.objects.count()
    response = admin_client.post("/admin/catalog/category/add/",
                                 {"name": "Lost", "slug": "", "parent": str(ObjectId())})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert Category.objects.count() == before


# -- rename and slug change ---------------------------------------------------

def test_rename_updates_the_breadcrumbs_of_every_descendant(admin_client, tree):
    response = admin_client.post(change_url(tree["Rock"]), form_data(tree["Rock"], name="Rock & Roll"))
    assert response.status_code == 302
    assert reload(tree["Rock"]).name == "Rock & Roll"
    assert [a.name for a in reload(tree["Heavy Metal"]).ancestors] == ["Music", "Rock & Roll", "Metal"]
    assert wrong_ancestors() == {}
    (entry,) = log_entries(CHANGE)
    assert entry.object_id == str(tree["Rock"].pk)
    assert "Name" in entry.get_change_message()
    history = admin_client.get(f"/admin/catalog/category/{tree['Rock'].pk}/history/")
    assert "Changed Name." in history.content.decode()


def test_slug_change_updates_descendants_and_the_storefront(admin_client, client, tree):
    response = admin_client.post(change_url(tree["Rock"]), form_data(tree["Rock"], slug="rock-music"))
    assert response.status_code == 302
    assert [a.slug for a in reload(tree["Metal"]).ancestors] == ["music", "rock-music"]
    assert wrong_ancestors() == {}
    assert client.get("/c/rock-music/").status_code == 200
    assert client.get("/c/rock/").status_code == 404
    assert 'href="/c/rock-music/"' in client.get("/c/metal/").content.decode()


def test_slug_change_to_a_taken_slug_is_a_form_error_and_changes_nothing(admin_client, tree):
    response = admin_client.post(change_url(tree["Rock"]),
                                 form_data(tree["Rock"], name="Renamed", slug="jazz"))
    assert response.status_code == 200
    assert "Category with this Slug already exists." in response.content.decode()
    rock = reload(tree["Rock"])
    assert (rock.name, rock.slug) == ("Rock", "rock")
    assert wrong_ancestors() == {}
    assert log_entries(CHANGE) == []


def test_a_refusal_the_manager_raises_while_saving_is_a_message(admin_client, tree, monkeypatch):
    """Another writer takes the slug between the form's check and the save."""

    def taken(self, category, name, slug=None):
        raise SlugTaken(f"The slug {slug!r} is taken by another category.")

    monkeypatch.setattr(type(Category.writes), "rename", taken)
    response = admin_client.post(change_url(tree["Rock"]), form_data(tree["Rock"], slug="rocks"),
                                 follow=True)
    assert response.status_code == 200
    assert "Nothing was saved: The slug &#x27;rocks&#x27; is taken" in response.content.decode()
    assert reload(tree["Rock"]).slug == "rock"
    assert log_entries(CHANGE) == []


# -- move ---------------------------------------------------------------------

def test_move_rebuilds_the_ancestors_of_the_subtree(admin_client, tree):
    response = admin_client.post(change_url(tree["Metal"]),
                                 form_data(tree["Metal"], parent=str(tree["Video"].pk)))
    assert response.status_code == 302
    assert [a.name for a in reload(tree["Heavy Metal"]).ancestors] == ["Video", "Metal"]
    assert reload(tree["Metal"]).parent_id == tree["Video"].pk
    assert wrong_ancestors() == {}
    (entry,) = log_entries(CHANGE)
    assert "Parent category" in entry.get_change_message()


def test_rename_and_move_in_one_save(admin_client, tree):
    response = admin_client.post(change_url(tree["Metal"]), form_data(
        tree["Metal"], name="Metal Music", slug="metal-music", parent=str(tree["Jazz"].pk)))
    assert response.status_code == 302
    assert [(a.name, a.slug) for a in reload(tree["Heavy Metal"]).ancestors] == [
        ("Music", "music"), ("Jazz", "jazz"), ("Metal Music", "metal-music")]
    assert wrong_ancestors() == {}


def test_move_to_the_top_level(admin_client, tree):
    response = admin_client.post(change_url(tree["Rock"]), form_data(tree["Rock"], parent=""))
    assert response.status_code == 302
    assert reload(tree["Rock"]).ancestors == []
    assert [a.name for a in reload(tree["Heavy Metal"]).ancestors] == ["Rock", "Metal"]
    assert wrong_ancestors() == {}


@pytest.mark.parametrize("target", ["Rock", "Metal", "Heavy Metal"])
def test_move_under_itself_or_a_descendant_is_a_form_error(admin_client, tree, target):
    response = admin_client.post(change_url(tree["Rock"]), form_data(
        tree["Rock"], name="Renamed", parent=str(tree[target].pk)))
    assert response.status_code == 200
    html = response.content.decode()
    assert "cannot be moved under" in html
    rock = reload(tree["Rock"])
    assert (rock.name, rock.parent_id) == ("Rock", tree["Music"].pk)
    assert wrong_ancestors() == {}
    assert log_entries(CHANGE) == []


# -- delete -------------------------------------------------------------------

def test_delete_a_leaf_through_the_manager(admin_client, tree):
    assert "Are you sure" in admin_client.get(delete_url(tree["Punk"])).content.decode()
    response = admin_client.post(delete_url(tree["Punk"]), {"post": "yes"})
    assert response.status_code == 302
    assert not Category.objects.filter(pk=tree["Punk"].pk).exists()
    (entry,) = log_entries(DELETION)
    assert entry.object_repr == "Punk"


def test_delete_with_subcategories_is_refused_with_the_reason(admin_client, tree):
    response = admin_client.get(delete_url(tree["Rock"]))
    html = response.content.decode()
    assert "cannot be deleted" in html and "Rock still has subcategories" in html
    response = admin_client.post(delete_url(tree["Rock"]), {"post": "yes"})
    assert "Rock still has subcategories" in response.content.decode()
    assert Category.objects.filter(pk=tree["Rock"].pk).exists()
    assert log_entries(DELETION) == []


def test_delete_with_products_is_refused_with_the_reason(admin_client, tree):
    Product.objects.create(sku="J-1", type="Film", title="Jazz film", categories=[tree["Jazz"].pk],
                           pricing=Pricing.from_prices(1000, 900))
    response = admin_client.post(delete_url(tree["Jazz"]), {"post": "yes"})
    assert "Jazz still has products" in response.content.decode()
    assert Category.objects.filter(pk=tree["Jazz"].pk).exists()
    assert log_entries(DELETION) == []


# -- who may --------------------------------------------------------------------

@pytest.fixture
def viewer(django_user_model):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_category", "view_product"]))
    return user


def test_staff_without_change_permission_can_look_but_not_change(client, viewer, tree):
    client.force_login(viewer)
    response = client.get(CHANGELIST)
    assert response.status_code == 200
    assert row_names(response)[:2] == ["Music", "Rock"]
    response = client.get(change_url(tree["Rock"]))
    assert response.status_code == 200
    assert 'name="name"' not in response.content.decode()  # read-only
    assert client.post(change_url(tree["Rock"]), form_data(tree["Rock"], name="X")).status_code == 403
    assert client.post("/admin/catalog/category/add/", {"name": "X", "slug": "", "parent": ""}
                       ).status_code == 403
    assert client.post(delete_url(tree["Punk"]), {"post": "yes"}).status_code == 403
    assert reload(tree["Rock"]).name == "Rock"
    assert Category.objects.filter(pk=tree["Punk"].pk).exists()
    assert not Category.objects.filter(name="X").exists()
    assert LogEntry.objects.count() == 0


def test_only_staff_reach_the_admin(client, django_user_model, tree):
    shopper = django_user_model.objects.create_user("shopper", password="pw")
    response = client.get(CHANGELIST)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    client.force_login(shopper)
    response = client.get(CHANGELIST)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    response = client.post(change_url(tree["Rock"]), form_data(tree["Rock"], name="X"))
    assert response.status_code == 302
    assert reload(tree["Rock"]).name == "Rock"


def test_admin_index_lists_the_catalog(admin_client):
    html = admin_client.get("/admin/").content.decode()
    assert 'href="/admin/catalog/category/"' in html and 'href="/admin/catalog/product/"' in html
