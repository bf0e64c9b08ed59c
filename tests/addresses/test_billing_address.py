"""The billing address at checkout (issue 44): "same as shipping" by default; unchecked, its own
fields on the same page, checked per country as the shipping address is; a signed-in shopper's
saved address in one click, or the account's own billing default; kept on the order as
validated and shown on the order page, the admin, the e-mail and the invoice's buyer."""

import pytest
from django.core import mail
from django.test import Client

from inventory.models import Inventory
from orders.invoices import invoice_document
from orders.models import Order
from tests.support.payments import charges
from tests.support.shopper import CARD, SKU, add

from .test_address_book import BERLIN, LONDON, checkout_post, saved, shopper

BILL_BERLIN = {"bill-shown": "1", "bill-name": "Ada Lovelace GmbH", "bill-line1": "Unter den Linden 1",
               "bill-city": "Berlin", "bill-postcode": "10117", "bill-country": "DE"}


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 20)


def test_a_guest_sees_same_as_shipping_checked_on_the_one_checkout_page(shop):
    client = Client()
    add(client)
    page = client.get("/checkout/")
    html = page.content.decode()
    assert page.context["billing_same"] is True and not page.context["billing_form"].is_bound
    assert 'name="bill-same" value="1" id="id_bill-same" checked' in html
    assert 'name="bill-line1"' in html and 'autocomplete="billing address-line1"' in html  # the same page
    assert "Bill to a saved address" not in html  # a guest has no book


def test_same_as_shipping_keeps_the_shipping_address_as_the_billing_one(shop):
    client = Client()
    add(client)
    # The page's box checked: the billing fields posted empty are not asked.
    response = client.post("/checkout/", {**CARD, "bill-shown": "1", "bill-same": "1", "bill-city": ""})
    assert response.status_code == 302
    order = Order.objects.get()
    assert (order.billing_address.line1, order.billing_address.country) == (order.address.line1, "GB")
    assert not order.billed_elsewhere
    assert "Billing address: the same as the shipping address." in client.get(response["Location"]).content.decode()


def test_an_unchecked_box_bills_to_its_own_address_shown_everywhere(shop, admin_client):
    client = Client()
    add(client)
    response = client.post("/checkout/", {**CARD, **BILL_BERLIN})
    assert response.status_code == 302, response.context["billing_form"].errors
    order = Order.objects.get()
    assert (order.address.city, order.billing_address.city, order.billing_address.country) == ("London", "Berlin", "DE")
    assert order.billing_address.name == "Ada Lovelace GmbH" and order.billed_elsewhere
    page = client.get(response["Location"]).content.decode()
    assert "<h2>Billing address</h2>" in page and "10117 Berlin<br>" in page  # Germany's line order
    assert "Billing address:\nAda Lovelace GmbH\nUnter den Linden 1\n10117 Berlin\nGermany" in mail.outbox[-1].body
    admin_page = admin_client.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert "Billing address" in admin_page and "10117 Berlin" in admin_page
    invoice = invoice_document(order)  # the buyer the invoice names: the billing address
    assert invoice["buyer_name"] == "Ada Lovelace GmbH"
    assert invoice["buyer_address"] == ["Ada Lovelace GmbH", "Unter den Linden 1", "10117 Berlin", "Germany"]


@pytest.mark.parametrize("changes, field, message", [
    ({"bill-postcode": "1011"}, "postcode", "Enter a valid postcode for Germany"),
    ({"bill-city": ""}, "city", "This field is required"),
    ({"bill-country": "XX"}, "country", "Select a valid choice"),
    ({"bill-country": "US", "bill-postcode": "10118"}, "region", "Choose a state or region"),
])
def test_a_bad_billing_address_is_a_form_error_and_nothing_is_charged(shop, changes, field, message):
    client = Client()
    add(client)
    response = client.post("/checkout/", {**CARD, **BILL_BERLIN, **changes})
    assert response.status_code == 200 and not Order.objects.exists() and not charges()
    errors = response.context["billing_form"].errors
    assert message in " ".join(errors[field]), errors
    assert response.context["billing_same"] is False  # the fields stay open with the errors


def test_the_billing_address_is_refused_like_markup(shop):
    client = Client()
    add(client)
    response = client.post("/checkout/", {**CARD, **BILL_BERLIN, "bill-line1": "<b>1</b> Street"})
    assert response.status_code == 200 and not Order.objects.exists()
    assert "Remove the < and > characters." in response.context["billing_form"].errors["line1"]


def test_a_signed_in_shopper_picks_a_saved_billing_address_in_one_click(shop):
    user, client = shopper()
    client.post("/account/addresses/add/", LONDON)
    client.post("/account/addresses/add/", BERLIN)
    home, work = saved(user)
    add(client)
    page = client.get("/checkout/")
    assert page.context["billing_same"] is True  # the default for billing is the address shipped to
    assert f'href="/checkout/?address={home.pk}&amp;billing={work.pk}"' in page.content.decode()
    page = client.get(f"/checkout/?address={home.pk}&billing={work.pk}")  # one click
    assert page.context["billing_same"] is False and page.context["chosen_billing"].pk == work.pk
    assert page.context["billing_form"].data["bill-city"] == "Berlin"
    assert page.context["address_form"].data["ship-city"] == "London"
    assert 'name="bill-same" value="1" id="id_bill-same" aria-controls' in page.content.decode()  # unchecked
    post = {**checkout_post(page.context["address_form"]), **page.context["billing_form"].data, "bill-shown": "1"}
    assert client.post("/checkout/", post).status_code == 302
    order = Order.objects.get()
    assert (order.address.city, order.billing_address.city) == ("London", "Berlin")


def test_the_accounts_billing_default_fills_the_billing_form(shop):
    user, client = shopper()
    client.post("/account/addresses/add/", LONDON)
    client.post("/account/addresses/add/", BERLIN)
    home, work = saved(user)
    client.post(f"/account/addresses/{work.pk}/default/billing/")
    add(client)
    page = client.get("/checkout/")
    assert page.context["billing_same"] is False and page.context["billing_form"].data["bill-city"] == "Berlin"
    assert page.context["address_form"].data["ship-city"] == "London"
