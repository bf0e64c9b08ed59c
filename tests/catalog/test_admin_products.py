"""Products in the admin: search, filters, sorting, pagination, add, edit, delete, refusals."""

import datetime

import pytest
from bson import ObjectId
from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry

from catalog.models import Category, Pricing, Product
from tests.support.admin import album_data, listed_skus
from tests.support.products import track

CHANGELIST = "/admin/catalog/product/"
ADD = "/admin/catalog/product/add/"


def change_url(product):
    return f"/admin/catalog/product/{product.pk}/change/"


@pytest.fixture
def shelf(make_tree):
    """Three albums in a small tree: Music > Rock > Metal, Music > Jazz."""
    tree = make_tree({"Music": {"Rock": {"Metal": {}}, "Jazz": {}}})
    made = {}
    for sku, title, artist, retail, category in [
        ("SKU-A", "Alpha", "Iron Band", 1500, "Metal"),
        ("SKU-B", "Bravo", "Jazz Trio", 900, "Jazz"),
        ("SKU-C", "Charlie", "Rock Crew", 1200, "Rock"),
    ]:
        made[sku] = Product.objects.create(
            sku=sku, type="Audio Album", title=title, categories=[tree[category].pk],
            pricing=Pricing.from_prices(2000, retail),
            details={"artist": artist, "genre": ["X"], "tracks": [track(1, "Intro", 61000)]},
        )
    made["SKU-F"] = Product.objects.create(
        sku="SKU-F", type="Film", title="Delta Film", categories=[tree["Music"].pk],
        pricing=Pricing.from_prices(3000, 2500), details={"director": ["Ann Dir"]},
    )
    made.update(tree)
    return made


# -- changelist ---------------------------------------------------------------

@pytest.mark.parametrize("term, expected", [
    ("bravo", ["SKU-B"]),       # title
    ("sku-c", ["SKU-C"]),       # SKU
    ("iron", ["SKU-A"]),        # artist
    ("a.*", []),                # plain text, not a regex
])
def test_search_by_title_sku_and_artist(admin_client, shelf, term, expected):
    response = admin_client.get(CHANGELIST, {"q": term})
    assert response.status_code == 200
    assert listed_skus(response) == expected


def test_filter_by_type(admin_client, shelf):
    response = admin_client.get(CHANGELIST, {"type__exact": "Film"})
    assert listed_skus(response) == ["SKU-F"]


def test_filter_by_category_includes_its_descendants(admin_client, shelf):
    response = admin_client.get(CHANGELIST, {"category": str(shelf["Rock"].pk)})
    assert listed_skus(response) == ["SKU-A", "SKU-C"]
    response = admin_client.get(CHANGELIST, {"category": str(shelf["Metal"].pk)})
    assert listed_skus(response) == ["SKU-A"]
    assert "Music &gt; Rock &gt; Metal" in response.content.decode()  # deeper than the sidebar


# A fixed id (no category has it): test ids must be the same in every xdist worker.
@pytest.mark.parametrize("value", ["6b051c38929ed6a90019476b", "not-an-id"])
def test_filter_by_an_unknown_category_lists_nothing(admin_client, shelf, value):
    response = admin_client.get(CHANGELIST, {"category": value})
    assert response.status_code == 200
    assert listed_skus(response) == []


def test_sort_by_price_and_title(admin_client, shelf):
    # Columns: 0 = the action checkbox, 1 sku, 2 title, 3 type, 4 artist, 5 retail price.
    assert listed_skus(admin_client.get(CHANGELIST, {"o": "5"})) == ["SKU-B", "SKU-C", "SKU-A", "SKU-F"]
    assert listed_skus(admin_client.get(CHANGELIST, {"o": "-5"})) == ["SKU-F", "SKU-A", "SKU-C", "SKU-B"]
    assert listed_skus(admin_client.get(CHANGELIST, {"o": "-2"})) == ["SKU-F", "SKU-C", "SKU-B", "SKU-A"]
    assert "$25.00" in admin_client.get(CHANGELIST).content.decode()


def test_pagination(admin_client, chinook):
    first = listed_skus(admin_client.get(CHANGELIST))
    second = listed_skus(admin_client.get(CHANGELIST, {"p": "2"}))
    assert len(first) == len(second) == 50
    assert not set(first) & set(second)
    assert "347 products" in admin_client.get(CHANGELIST).content.decode()


# -- add ----------------------------------------------------------------------

def test_add_an_album_stores_cents_categories_and_details(admin_client, client, shelf):
    data = album_data(categories=[str(shelf["Metal"].pk), str(shelf["Jazz"].pk)])
    response = admin_client.post(ADD, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    product = Product.objects.get_by_sku("NEW-1")
    assert (product.pricing.list, product.pricing.retail, product.pricing.savings,
            product.pricing.pct_savings) == (1250, 999, 251, 20)
    assert product.categories == [shelf["Metal"].pk, shelf["Jazz"].pk]
    assert product.details["artist"] == "The Testers"
    assert product.details["genre"] == ["Rock", "Metal"]
    assert product.details["issue_date"] == datetime.datetime(2024, 3, 1, 10, 0, tzinfo=datetime.UTC)
    assert product.shipping.weight == 120 and product.shipping.dimensions.width == 142
    (entry,) = LogEntry.objects.filter(action_flag=ADDITION)
    assert entry.object_id == str(product.pk)
    # Listed on its category pages (and its ancestors').
    assert "Fresh Album" in client.get("/c/metal/").content.decode()
    assert "Fresh Album" in client.get("/c/rock/").content.decode()


def test_add_a_film(admin_client, shelf):
    response = admin_client.post(ADD, album_data(
        sku="FILM-9", type="Film", details_artist=None, details_format=None, details_tracks=None,
        **{"details_director": "Ann\nBob", "details_rating": "PG", "details_actor": "Cy"}))
    assert response.status_code == 302
    film = Product.objects.get_by_sku("FILM-9")
    assert film.details == {"director": ["Ann", "Bob"], "actor": ["Cy"], "genre": ["Rock", "Metal"],
                            "rating": "PG", "issue_date": film.details["issue_date"]}


def test_duplicate_sku_is_refused(admin_client, shelf):
    response = admin_client.post(ADD, album_data(sku="SKU-A"))
    assert response.status_code == 200
    assert "Product with this SKU already exists." in response.content.decode()
    assert Product.objects.filter(sku="SKU-A").count() == 1
    assert LogEntry.objects.count() == 0


@pytest.mark.parametrize("changes, message", [
    ({"details_issue_date": "last tuesday"}, "Enter a valid date/time."),
    ({"details_format": "Cassette"}, "Select a valid choice."),
    ({"details_tracks": "1 | Intro | Ann | long | 99"}, "Record 1, duration: Enter a number."),
    ({"details_tracks": "1 | Intro | Ann | 100 | 99 | extra"}, "Line 1 has 6 values"),
    ({"retail_price": "13.00"}, "The retail price cannot be above the list price."),
    ({"list_price": "-1"}, "Ensure this value is greater than or equal to 0."),
    ({"list_price": "1.999"}, "Ensure that there are no more than 2 decimal places."),
    ({"categories": [str(ObjectId())]}, "Select a valid choice."),
])
def test_invalid_input_is_a_form_error_and_adds_nothing(admin_client, shelf, changes, message):
    response = admin_client.post(ADD, album_data(**changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Product.objects.filter(sku="NEW-1").exists()
    assert LogEntry.objects.count() == 0


# -- edit ---------------------------------------------------------------------

def test_change_form_shows_dollars_and_details(admin_client, shelf):
    html = admin_client.get(change_url(shelf["SKU-A"])).content.decode()
    assert 'name="list_price" value="20.00"' in html
    assert 'name="retail_price" value="15.00"' in html
    assert 'name="details_artist" value="Iron Band"' in html
    assert "1 | Intro |  | 61000 | 99</textarea>" in html
    assert f'<option value="{shelf["Metal"].pk}" selected>— — Metal</option>' in html


def test_edit_keeps_the_tracks_and_logs_the_change(admin_client, shelf):
    product = shelf["SKU-A"]
    data = album_data(sku="SKU-A", title="Alpha Remastered", retail_price="11.00", list_price="20.00",
                      categories=[str(shelf["Jazz"].pk)], details_artist="Iron Band",
                      details_tracks="1 | Intro |  | 61000 | 99")
    response = admin_client.post(change_url(product), data)
    assert response.status_code == 302
    product = Product.objects.get_by_sku("SKU-A")
    assert product.title == "Alpha Remastered"
    assert (product.pricing.retail, product.pricing.savings) == (1100, 900)
    assert product.categories == [shelf["Jazz"].pk]
    assert product.details["tracks"] == [track(1, "Intro", 61000)]
    (entry,) = LogEntry.objects.filter(action_flag=CHANGE)
    assert "Title" in entry.get_change_message()


def test_the_type_is_fixed_once_the_product_is_added(admin_client, shelf):
    data = album_data(sku="SKU-A", type="Film", details_tracks="1 | Intro |  | 61000 | 99")
    response = admin_client.post(change_url(shelf["SKU-A"]), data)
    assert response.status_code == 302
    product = Product.objects.get_by_sku("SKU-A")
    assert product.type == "Audio Album" and product.details["artist"] == "The Testers"


def test_changing_to_another_products_sku_is_refused(admin_client, shelf):
    response = admin_client.post(change_url(shelf["SKU-A"]), album_data(sku="SKU-B"))
    assert response.status_code == 200
    assert "Product with this SKU already exists." in response.content.decode()
    assert Product.objects.get(pk=shelf["SKU-A"].pk).sku == "SKU-A"


# -- delete -------------------------------------------------------------------

def test_delete_with_confirmation(admin_client, shelf):
    product = shelf["SKU-B"]
    url = f"/admin/catalog/product/{product.pk}/delete/"
    assert "Are you sure" in admin_client.get(url).content.decode()
    assert Product.objects.filter(pk=product.pk).exists()
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Product.objects.filter(pk=product.pk).exists()
    (entry,) = LogEntry.objects.filter(action_flag=DELETION)
    assert entry.object_repr == "Bravo (SKU-B)"


# -- who may --------------------------------------------------------------------

def test_staff_without_change_permission_can_look_but_not_change(client, django_user_model, shelf):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_product"))
    client.force_login(viewer)
    assert listed_skus(client.get(CHANGELIST)) == ["SKU-A", "SKU-B", "SKU-C", "SKU-F"]
    response = client.get(change_url(shelf["SKU-A"]))
    html = response.content.decode()
    assert response.status_code == 200 and 'name="title"' not in html
    for shown in ["Alpha", "$20.00", "$15.00", "Music &gt; Rock &gt; Metal", "Artist: Iron Band", "1 tracks"]:
        assert shown in html
    assert client.post(change_url(shelf["SKU-A"]), album_data(sku="SKU-A", title="X")).status_code == 403
    assert client.post(ADD, album_data()).status_code == 403
    delete = f"/admin/catalog/product/{shelf['SKU-A'].pk}/delete/"
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert Product.objects.get(pk=shelf["SKU-A"].pk).title == "Alpha"
    assert Product.objects.count() == 4
    assert LogEntry.objects.count() == 0


def test_category_changelist_links_to_the_products_of_a_category(admin_client, shelf):
    html = admin_client.get("/admin/catalog/category/").content.decode()
    link = f'/admin/catalog/product/?category={shelf["Metal"].pk}'
    assert link in html
    assert listed_skus(admin_client.get(link)) == ["SKU-A"]
    assert isinstance(Category.objects.get_by_slug("metal"), Category)


def test_bulk_delete_asks_for_confirmation_first(admin_client, shelf):
    selected = [str(shelf["SKU-A"].pk), str(shelf["SKU-B"].pk)]
    response = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": selected})
    assert "Are you sure you want to delete the selected products?" in response.content.decode()
    assert Product.objects.count() == 4
    response = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": selected,
                                              "post": "yes"})
    assert response.status_code == 302
    assert sorted(p.sku for p in Product.objects.all()) == ["SKU-C", "SKU-F"]
    assert LogEntry.objects.filter(action_flag=DELETION).count() == 2


def test_a_product_added_by_staff_gets_an_empty_stock_record(admin_client, shelf):
    from inventory.models import Inventory

    assert Inventory.objects.available("NEW-1") is None
    response = admin_client.post(ADD, album_data(categories=[str(shelf["Metal"].pk)]))
    assert response.status_code == 302
    assert Inventory.objects.available("NEW-1") == 0
    # Staff can now set its stock in the stock admin.
    assert admin_client.get("/admin/inventory/inventory/").content.decode().count("NEW-1") >= 1
