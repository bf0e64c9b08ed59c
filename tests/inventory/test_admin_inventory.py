"""Stock and carts in the admin: read-only reservations, set/adjust through the manager, expire now."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry

from inventory.exceptions import StockError
from inventory.models import Cart, Inventory
from tests.support.inventory import add, age_carts, assert_invariant, stock

STOCK_LIST = "/admin/inventory/inventory/"
CART_LIST = "/admin/inventory/cart/"


def stock_url(sku):
    return f"/admin/inventory/inventory/{sku}/change/"


def cart_url(cart_id):
    return f"/admin/inventory/cart/{cart_id}/change/"


@pytest.fixture
def shelf():
    """SKU-1 with 10 units, 3 of them in a cart; SKU-2 with 1 unit. Returns the cart."""
    stock("SKU-1", 10)
    stock("SKU-2", 1)
    cart = Cart.objects.create_cart()
    add(cart.id, "SKU-1", 3)
    return cart


def available(sku):
    return Inventory.objects.available(sku)


def reserved(sku):
    return Inventory.objects.get(pk=sku).reserved


# -- stock --------------------------------------------------------------------

def test_stock_list_and_page_show_quantities_and_reservations(admin_client, shelf):
    html = admin_client.get(STOCK_LIST).content.decode()
    assert "SKU-1" in html and "SKU-2" in html
    assert '<td class="field-qty">7</td><td class="field-reserved_units">3</td>' in html
    html = admin_client.get(stock_url("SKU-1")).content.decode()
    assert f'href="{cart_url(shelf.id)}">{shelf.id}</a></td><td>3</td><td>0' in html
    assert 'name="qty"' not in html  # read-only
    assert 'name="set_qty"' in html and 'name="adjust_by"' in html
    assert "Add inventory" not in html


def test_out_of_stock_filter(admin_client, shelf):
    Inventory.objects.set_stock("SKU-2", 0)
    html = admin_client.get(STOCK_LIST, {"available": "0"}).content.decode()
    assert "SKU-2" in html and "SKU-1" not in html


def test_set_stock_through_the_manager_leaves_reservations(admin_client, shelf):
    response = admin_client.post(stock_url("SKU-1"), {"set_qty": "25", "adjust_by": ""})
    assert response.status_code == 302
    assert (available("SKU-1"), reserved("SKU-1")) == (25, 3)
    (entry,) = LogEntry.objects.filter(action_flag=CHANGE)
    assert entry.get_change_message() == "Available stock set from 7 to 25."
    assert_invariant()


@pytest.mark.parametrize("delta, expected", [("5", 12), ("-7", 0)])
def test_adjust_stock_through_the_manager(admin_client, shelf, delta, expected):
    response = admin_client.post(stock_url("SKU-1"), {"set_qty": "", "adjust_by": delta})
    assert response.status_code == 302
    assert (available("SKU-1"), reserved("SKU-1")) == (expected, 3)
    assert LogEntry.objects.filter(action_flag=CHANGE).count() == 1
    assert_invariant()


@pytest.mark.parametrize("data, message", [
    ({"set_qty": "-1", "adjust_by": ""}, "Ensure this value is greater than or equal to 0."),
    ({"set_qty": "", "adjust_by": "-8"}, "Only 7 available: cannot remove 8."),
    ({"set_qty": "", "adjust_by": "0"}, "Adjust by at least one unit."),
    ({"set_qty": "3", "adjust_by": "2"}, "Either set the available quantity or adjust it, not both."),
    ({"set_qty": "", "adjust_by": ""}, "Either set the available quantity or adjust it, not both."),
])
def test_negative_or_unclear_stock_changes_are_form_errors(admin_client, shelf, data, message):
    response = admin_client.post(stock_url("SKU-1"), data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert (available("SKU-1"), reserved("SKU-1")) == (7, 3)
    assert LogEntry.objects.count() == 0


def test_a_refusal_of_the_manager_is_a_message_and_changes_nothing(admin_client, shelf, monkeypatch):
    """A shopper takes the last units between the form's check and the write."""

    def refuse(self, sku, delta):
        raise StockError(f"Only 0 of {sku} available: cannot remove {-delta}.")

    monkeypatch.setattr(type(Inventory.objects), "adjust_stock", refuse)
    response = admin_client.post(stock_url("SKU-1"), {"set_qty": "", "adjust_by": "-2"}, follow=True)
    assert "Nothing was changed: Only 0 of SKU-1 available" in response.content.decode()
    assert available("SKU-1") == 7
    assert LogEntry.objects.count() == 0


def test_stock_cannot_be_added_or_deleted_here(admin_client, shelf):
    assert admin_client.get("/admin/inventory/inventory/add/").status_code == 403
    assert admin_client.post("/admin/inventory/inventory/SKU-2/delete/", {"post": "yes"}).status_code == 403
    assert available("SKU-2") == 1


# -- carts --------------------------------------------------------------------

def test_cart_list_filters_by_status_and_age(admin_client, shelf):
    old = Cart.objects.create_cart()
    add(old.id, "SKU-2", 1)
    age_carts(2 * 3600)
    fresh = Cart.objects.create_cart()
    html = admin_client.get(CART_LIST, {"age": "1h"}).content.decode()
    assert old.id in html and shelf.id in html and fresh.id not in html
    html = admin_client.get(CART_LIST, {"age": "1d"}).content.decode()
    assert old.id not in html
    Cart.expiry.expire_cart(old.id)
    html = admin_client.get(CART_LIST, {"status__exact": "expired"}).content.decode()
    assert old.id in html and shelf.id not in html


def test_cart_page_shows_its_lines_read_only(admin_client, shelf):
    html = admin_client.get(cart_url(shelf.id)).content.decode()
    assert "<td>SKU-1</td><td>Test album</td><td>3</td><td>$9.99</td><td>$29.97</td>" in html
    assert 'name="_save"' not in html and 'name="status"' not in html


def test_expire_now_returns_the_stock_through_the_manager(admin_client, shelf):
    done = Cart.objects.create_cart()
    Cart.expiry.expire_cart(done.id)  # already expired: left alone
    response = admin_client.post(CART_LIST, {"action": "expire_now",
                                             "_selected_action": [shelf.id, done.id]}, follow=True)
    html = response.content.decode()
    assert "1 cart(s) expired" in html and "1 cart(s) were not active" in html
    assert Cart.objects.get_cart(shelf.id).status == "expired"
    assert (available("SKU-1"), reserved("SKU-1")) == (10, 0)
    (entry,) = LogEntry.objects.filter(action_flag=CHANGE)
    assert entry.object_id == shelf.id
    assert_invariant()


# -- who may --------------------------------------------------------------------

def test_staff_without_change_permission_can_look_but_not_change(client, django_user_model, shelf):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_inventory", "view_cart"]))
    client.force_login(viewer)
    html = client.get(stock_url("SKU-1")).content.decode()
    assert "SKU-1" in html and 'name="set_qty"' not in html
    assert client.post(stock_url("SKU-1"), {"set_qty": "0", "adjust_by": ""}).status_code == 403
    assert "expire_now" not in client.get(CART_LIST).content.decode()
    client.post(CART_LIST, {"action": "expire_now", "_selected_action": [shelf.id]})
    assert Cart.objects.get_cart(shelf.id).status == "active"
    assert available("SKU-1") == 7
    assert LogEntry.objects.count() == 0


# -- the product list's stock and the cart list's customers -------------

def _product(sku, title):
    from catalog.models import Pricing, Product

    return Product.objects.create(sku=sku, type="Film", title=title,
                                  pricing=Pricing.from_prices(1000, 900))


def test_product_list_shows_available_and_reserved_from_one_read(admin_client, shelf):
    import re

    from core.mongo.counter import count_operations

    _product("SKU-1", "Alpha")
    _product("SKU-2", "Beta")
    _product("SKU-3", "Gamma")  # no stock record
    with count_operations() as ops:
        html = admin_client.get("/admin/catalog/product/").content.decode()
    cells = re.findall(r'<td class="field-available">([^<]*)</td><td class="field-reserved">([^<]*)</td>',
                       html)
    assert cells == [("7", "3"), ("1", "0"), ("-", "-")]  # by title
    assert [op for op in ops.operations if op[0] == "inventory"] == [("inventory", "find")]
    assert "shop/admin/lists.css" in html


@pytest.mark.parametrize("value, expected", [("yes", ["SKU-1", "SKU-2"]), ("low", ["SKU-2"]),
                                             ("no", ["SKU-3"])])
def test_product_availability_filter(admin_client, shelf, value, expected):
    from tests.support.admin import listed_skus

    _product("SKU-1", "Alpha")
    _product("SKU-2", "Beta")
    _product("SKU-3", "Gamma")
    response = admin_client.get("/admin/catalog/product/", {"available": value})
    assert sorted(listed_skus(response)) == expected


def test_cart_list_shows_the_customer_and_no_view_on_site(admin_client, shelf):
    Cart.objects.collection.update_one({"_id": shelf.id}, {"$set": {
        "customer_name": "Ada Lovelace", "customer_email": "ada@example.com"}})
    html = admin_client.get("/admin/inventory/cart/").content.decode()
    assert "Ada Lovelace" in html and "ada@example.com" in html
    assert f"{shelf.id[:8]}…" in html
    assert admin_client.get("/admin/inventory/cart/", {"q": "lovelace"}).content.decode().count(
        "Ada Lovelace") == 1
    page = admin_client.get(cart_url(shelf.id)).content.decode()
    assert "View on site" not in page
