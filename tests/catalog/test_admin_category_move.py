"""The admin tree's move endpoint (``POST /admin/catalog/category/move/``): what the tree's
drag and drop sends. Moves through Category.writes.move, CSRF-protected, change permission
only, recorded in LogEntry; a refusal is a 400 with the reason and changes nothing."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.test import Client

from catalog.models import Category
from core import mongo
from tests.support.tree import wrong_ancestors

MOVE = "/admin/catalog/category/move/"


@pytest.fixture
def tree(make_tree):
    return make_tree({"Music": {"Rock": {"Metal": {"Doom": {}}}, "Jazz": {}}, "Video": {"Drama": {}}})


def snapshot():
    return sorted(mongo.get_collection("categories").find({}), key=lambda d: d["slug"])


def post(client, node, target, where):
    return client.post(MOVE, {"node": str(node.pk), "target": str(target.pk), "where": where})


def names_under(parent):
    return [c.name for c in Category.objects.children(parent)]


def test_a_drop_inside_moves_the_subtree_and_is_logged(admin_client, tree):
    response = post(admin_client, tree["Rock"], tree["Video"], "inside")
    assert response.status_code == 200
    assert response.json() == {"message": "Moved Rock into Video."}
    assert names_under(tree["Video"]) == ["Drama", "Rock"]
    assert [c["name"] for c in Category.objects.breadcrumbs("doom")] == ["Video", "Rock", "Metal", "Doom"]
    assert wrong_ancestors() == {}
    entry = LogEntry.objects.get()
    assert (entry.action_flag, entry.object_repr, entry.object_id) == (CHANGE, "Rock", str(tree["Rock"].pk))
    # The message shows on the page the script reloads.
    assert "Moved Rock into Video." in admin_client.get("/admin/catalog/category/").content.decode()


@pytest.mark.parametrize("where, expected", [("before", ["Drama", "Jazz"]), ("after", ["Jazz", "Drama"])])
def test_a_drop_before_or_after_a_sibling(admin_client, tree, where, expected):
    assert post(admin_client, tree["Drama"], tree["Jazz"], where).status_code == 200
    assert names_under(tree["Music"]) == ["Rock", *expected]
    assert names_under(tree["Video"]) == []


@pytest.mark.parametrize("target, where", [("Doom", "inside"), ("Metal", "before"), ("Rock", "inside")])
def test_a_drop_on_the_nodes_own_subtree_is_refused_and_changes_nothing(admin_client, tree, target, where):
    before = snapshot()
    response = post(admin_client, tree["Rock"], tree[target], where)
    assert response.status_code == 400
    assert "Nothing was moved" in response.json()["error"]
    assert "Rock cannot be moved" in response.json()["error"]
    assert snapshot() == before
    assert LogEntry.objects.count() == 0


@pytest.mark.parametrize("data", [
    {},
    {"node": "nope", "target": "nope", "where": "inside"},
    {"node": "0123456789ab0123456789ab", "target": "0123456789ab0123456789ab", "where": "inside"},
    {"where": "beside"},
])
def test_bad_input_is_a_400_and_changes_nothing(admin_client, tree, data):
    data = {"node": str(tree["Rock"].pk), "target": str(tree["Video"].pk), **data} if data else {}
    before = snapshot()
    response = admin_client.post(MOVE, data)
    assert response.status_code == 400
    assert response.json()["error"].startswith("Nothing was moved:")
    assert snapshot() == before


def test_get_is_not_allowed(admin_client, tree):
    assert admin_client.get(MOVE).status_code == 405


def test_without_the_csrf_token_nothing_moves(admin_user, tree):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    before = snapshot()
    assert post(client, tree["Rock"], tree["Video"], "inside").status_code == 403
    assert snapshot() == before
    client.get("/admin/catalog/category/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = client.post(MOVE, {"node": str(tree["Rock"].pk), "target": str(tree["Video"].pk),
                                  "where": "inside"}, headers={"X-CSRFToken": token})
    assert response.status_code == 200


def test_staff_without_the_change_permission_cannot_move(client, django_user_model, tree):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename="view_category"))
    client.force_login(viewer)
    before = snapshot()
    assert post(client, tree["Rock"], tree["Video"], "inside").status_code == 403
    assert snapshot() == before
    # Their tree offers no drag handles' endpoint.
    assert "data-move-url" not in client.get("/admin/catalog/category/").content.decode()


def test_only_staff_reach_the_endpoint(client, tree):
    response = post(client, tree["Rock"], tree["Video"], "inside")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_tree_escapes_category_names(admin_client, make_tree):
    make_tree({'<script>alert("x")</script>': {"<b>bold</b>": {}}})
    html = admin_client.get("/admin/catalog/category/").content.decode()
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert 'title="Collapse or expand &lt;script&gt;' in html


# -- the same without JavaScript: the change form's "Place before" --------------

def form_data(category, **changes):
    data = {"name": category.name, "slug": category.slug,
            "parent": str(category.parent_id) if category.parent_id else "", "place_before": ""}
    data.update(changes)
    return data


def change_url(category):
    return f"/admin/catalog/category/{category.pk}/change/"


def test_the_change_form_places_a_category_before_a_sibling(admin_client, tree):
    response = admin_client.post(change_url(tree["Jazz"]),
                                 form_data(tree["Jazz"], place_before=str(tree["Rock"].pk)))
    assert response.status_code == 302
    assert names_under(tree["Music"]) == ["Jazz", "Rock"]
    # Moving under a new parent and before one of its subcategories at once.
    response = admin_client.post(change_url(tree["Rock"]), form_data(
        tree["Rock"], parent=str(tree["Video"].pk), place_before=str(tree["Drama"].pk)))
    assert response.status_code == 302
    assert names_under(tree["Video"]) == ["Rock", "Drama"]
    assert wrong_ancestors() == {}
    # Adding a category before another.
    admin_client.post("/admin/catalog/category/add/", {
        "name": "Blues", "slug": "", "parent": str(tree["Music"].pk), "place_before": str(tree["Jazz"].pk)})
    assert names_under(tree["Music"]) == ["Blues", "Jazz"]


@pytest.mark.parametrize("parent, before, message", [
    ("Music", "Drama", "Drama is not a subcategory of the parent chosen."),
    ("Music", "Jazz", "A category cannot be placed before itself."),
])
def test_a_place_before_that_does_not_fit_is_a_form_error(admin_client, tree, parent, before, message):
    snapshot_before = snapshot()
    response = admin_client.post(change_url(tree["Jazz"]), form_data(
        tree["Jazz"], parent=str(tree[parent].pk), place_before=str(tree[before].pk)))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert snapshot() == snapshot_before
