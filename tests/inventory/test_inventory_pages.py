"""Shopper pages: add to cart, the cart, checkout, the confirmation; bad input of each."""

import pytest
from django.test import Client

from inventory.models import Cart, Inventory
from core.mongo.counter import count_operations

from tests.support.inventory import age_carts, assert_invariant, cart_doc, inventory
from tests.support.payments import DECLINED
from tests.support.shopper import CARD, OTHER, SKU, CheckoutForm, add, session_cart

@pytest.fixture
def shop(chinook):
    """The demo catalog with 5 units of SKU and OTHER."""
    Inventory.objects.set_stock(SKU, 5)
    Inventory.objects.set_stock(OTHER, 5)


def test_product_page_has_an_add_to_cart_form_with_csrf(client, shop):
    page = client.get(f"/p/{SKU}/").content.decode()
    assert 'action="/cart/add/"' in page and "csrfmiddlewaretoken" in page


def test_add_to_cart_reserves_and_the_header_counts_without_a_query(client, shop):
    response = add(client, qty=2, follow=True)
    assert "Added 2" in response.content.decode()
    cart_id = session_cart(client)
    assert cart_doc(cart_id)["items"][0]["qty"] == 2
    assert inventory(SKU)["qty"] == 3
    add(client, OTHER, 1)
    assert client.session["cart_count"] == 3
    page = client.get("/c/rock/")
    assert "Cart (3)" in page.content.decode()


def test_category_page_with_a_cart_costs_one_read_more_the_session(client, shop):
    """The page's 4 round trips, plus the server-side session read by its key
    (sessions live in the database so that sign-out ends them); the cart itself is not read."""
    add(client, qty=2)
    client.get("/c/rock/")
    with count_operations() as ops:
        response = client.get("/c/rock/")
    assert response.status_code == 200 and "Cart (2)" in response.content.decode()
    assert ops.total <= 5 and [op for op in ops.operations if op[0] == "django_session"] == [
        ("django_session", "aggregate")], ops


def test_cart_page_lists_lines_and_total(client, shop):
    add(client, qty=2)
    page = client.get("/cart/").content.decode()
    assert SKU in page and "Total" in page


def test_update_and_remove_lines(client, shop):
    add(client, qty=2)
    add(client, OTHER, 1)
    client.post("/cart/update/", {"sku": SKU, "qty": 4})
    assert inventory(SKU)["qty"] == 1
    assert client.session["cart_count"] == 5
    client.post("/cart/remove/", {"sku": OTHER})
    assert inventory(OTHER)["qty"] == 5
    client.post("/cart/update/", {"sku": SKU, "qty": 0})
    assert inventory(SKU)["qty"] == 5
    assert cart_doc(session_cart(client))["items"] == []
    assert client.session["cart_count"] == 0


@pytest.mark.parametrize("qty", ["0", "-1", "abc", "11", ""])
def test_add_with_a_bad_quantity_says_why_and_changes_nothing(client, shop, qty):
    response = add(client, qty=qty, follow=True)
    assert response.status_code == 200
    assert "Quantity:" in response.content.decode()
    assert inventory(SKU)["qty"] == 5
    assert Cart.objects.collection.count_documents({}) == 0


def test_add_of_an_unknown_sku_is_a_404(client, shop):
    assert add(client, sku="NOPE-1").status_code == 404
    assert add(client, sku="{'$ne': 1}").status_code == 404  # never a query operator
    assert Cart.objects.collection.count_documents({}) == 0


def test_add_more_than_in_stock_says_how_many_are_left(client, shop):
    response = add(client, qty=6, follow=True)
    assert "Only 5 left" in response.content.decode()
    assert inventory(SKU)["qty"] == 5


@pytest.mark.parametrize("data", [{"sku": SKU, "qty": "-2"}, {"sku": SKU, "qty": "x"},
                                  {"sku": SKU, "qty": "11"}, {"qty": "1"}])
def test_update_with_bad_input_is_a_400_and_changes_nothing(client, shop, data):
    add(client, qty=2)
    assert client.post("/cart/update/", data).status_code == 400
    assert inventory(SKU)["qty"] == 3
    assert cart_doc(session_cart(client))["items"][0]["qty"] == 2


def test_update_of_a_sku_not_in_the_cart_says_so(client, shop):
    add(client, qty=2)
    response = client.post("/cart/update/", {"sku": OTHER, "qty": 1}, follow=True)
    assert "not in your cart" in response.content.decode()
    assert inventory(OTHER)["qty"] == 5


def test_another_sessions_cart_cannot_be_read_or_changed(client, shop):
    add(client, qty=2)
    victim = session_cart(client)
    intruder = Client()
    # No request parameter names a cart: a posted cart id is ignored.
    intruder.post("/cart/update/", {"sku": SKU, "qty": 0, "cart_id": victim})
    intruder.post("/cart/remove/", {"sku": SKU, "cart_id": victim})
    assert cart_doc(victim)["items"][0]["qty"] == 2
    assert SKU not in intruder.get(f"/cart/?cart_id={victim}").content.decode()
    # Another session's order confirmation is a 404.
    number = client.post("/checkout/", CARD)["Location"].split("/")[-2]
    assert client.get(f"/order/{number}/").status_code == 200
    assert intruder.get(f"/order/{number}/").status_code == 404
    assert intruder.get(f"/order/{victim}/").status_code == 404


def test_forms_without_a_csrf_token_are_refused(shop):
    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/cart/add/", {"sku": SKU, "qty": 1}).status_code == 403
    assert strict.post("/cart/update/", {"sku": SKU, "qty": 1}).status_code == 403
    assert strict.post("/checkout/", CARD).status_code == 403
    assert inventory(SKU)["qty"] == 5


def test_get_on_a_post_only_url_is_refused(client, shop):
    assert client.get("/cart/add/").status_code == 405


def test_adding_to_an_expired_cart_says_so_and_starts_a_new_one(client, shop):
    add(client, qty=2)
    old = session_cart(client)
    age_carts(7200)
    Cart.expiry.expire(60)
    response = add(client, OTHER, 1, follow=True)
    assert "expired" in response.content.decode()
    new = session_cart(client)
    assert new != old
    assert [line["sku"] for line in cart_doc(new)["items"]] == [OTHER]
    assert client.session["cart_count"] == 1
    assert inventory(SKU)["qty"] == 5
    assert_invariant()


def test_checkout_takes_payment_and_shows_the_confirmation(client, shop):
    add(client, qty=2)
    cart_id = session_cart(client)
    response = client.post("/checkout/", CARD)
    assert response.status_code == 302 and response["Location"] == "/order/CR-00001/"
    page = client.get(response["Location"]).content.decode()
    assert "confirmed" in page and SKU in page
    assert cart_doc(cart_id)["status"] == "complete"
    assert cart_doc(cart_id)["customer_email"] == "ada@example.com"
    assert inventory(SKU) ["carted"] == [] and inventory(SKU)["qty"] == 3
    assert client.session.get("cart_id") is None and client.session["cart_count"] == 0
    assert_invariant()


def test_declined_card_shows_why_and_keeps_the_cart(client, shop):
    add(client, qty=2)
    cart_id = session_cart(client)
    response = client.post("/checkout/", CheckoutForm(DECLINED))
    assert response.status_code == 200
    assert "declined" in response.content.decode()
    assert cart_doc(cart_id)["status"] == "active"
    assert inventory(SKU)["qty"] == 3 and len(inventory(SKU)["carted"]) == 1


@pytest.mark.parametrize("field, value", [
    ("stripe_token", ""),  # the page's Stripe.js made no token (no script, a refused card)
    ("stripe_token", "4242424242424242"),  # never a card number: only a Stripe token is taken
    ("stripe_token", "tok_$gt"),
    ("email", "not-an-email"),
    ("ship-name", ""),  # the one name: the shipping address's full name
])
def test_checkout_form_errors_change_nothing(client, shop, field, value):
    add(client, qty=2)
    cart_id = session_cart(client)
    response = client.post("/checkout/", {**CARD, field: value})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert cart_doc(cart_id)["status"] == "active"
    assert inventory(SKU)["qty"] == 3


def test_checkout_with_an_empty_cart_goes_back_to_the_cart(client, shop):
    response = client.get("/checkout/")
    assert response.status_code == 302 and response["Location"] == "/cart/"


def test_checkout_of_an_expired_cart_says_so(client, shop):
    add(client, qty=2)
    age_carts(7200)
    Cart.expiry.expire(60)
    response = client.post("/checkout/", CARD, follow=True)
    assert "expired" in response.content.decode()
    assert client.session.get("cart_id") is None
