"""The checkout page with tax by destination: the total for the address is shown before
anything is charged, the order keeps the tax as applied, and a later edit of a rate changes
neither the order nor a refund of its lines."""

from decimal import Decimal

import pytest

from inventory.models import Inventory
from orders import pricing
from orders.models import Order
from taxes.models import TaxRate

from tests.support.payments import charges
from tests.support.shopper import CARD, SKU, add

BERLIN = {"ship-line1": "Unter den Linden 1", "ship-city": "Berlin", "ship-postcode": "10117", "ship-country": "DE"}


@pytest.fixture
def shop(chinook, settings):
    settings.SHOP_PRICES_INCLUDE_TAX = False
    settings.SHOP_COUNTRY = "GB"
    TaxRate.objects.all().delete()
    TaxRate.objects.create(country="DE", tax_class="standard", percent=Decimal("19"), name="VAT")
    Inventory.objects.set_stock(SKU, 5)


def test_a_german_order_is_shown_its_total_before_paying_and_keeps_its_rate(client, shop):
    add(client, qty=2)
    shown = client.get("/checkout/").context["totals"]
    assert shown.tax_percent == "20"  # no address yet: SHOP_TAX_PERCENT
    response = client.post("/checkout/", {**CARD, **BERLIN, "confirmed_total": shown.total, "priced_for": ""})
    assert response.status_code == 200 and not Order.objects.exists() and not charges()
    again = response.context["totals"]
    assert again.tax_percent == "19" and again.tax_name == "VAT"
    assert "With tax and shipping for this address the total is" in response.content.decode()
    # Country, region, VAT number, postcode and the shipping method charged (shipping.rates).
    priced_for = response.context["priced_for"]
    assert priced_for.startswith("DE|||10117|") and priced_for.endswith(again.shipping_method["code"])
    response = client.post("/checkout/", {**CARD, **BERLIN, "confirmed_total": again.total, "priced_for": priced_for})
    assert response.status_code == 302
    order = Order.objects.get()
    assert (order.total, order.tax, order.tax_name) == (again.total, again.tax, "VAT")
    assert [line.tax_rate for line in order.lines] == ["19"] and order.shipping_tax_rate == "19"
    assert "VAT (19 %)" in client.get(response["Location"]).content.decode()
    refund = pricing.refund_of_units(order.lines[0], 1)

    # Editing the rate later changes nothing on the order or a refund of its units.
    TaxRate.objects.filter(country="DE").update(percent=Decimal("25"))
    kept = Order.objects.get()
    assert (kept.total, kept.tax, kept.lines[0].tax_rate) == (order.total, order.tax, "19")
    assert pricing.refund_of_units(kept.lines[0], 1) == refund


def test_an_invalid_vat_number_is_refused_before_any_payment(client, shop):
    add(client)
    response = client.post("/checkout/", {**CARD, **BERLIN, "ship-vat_number": "DE136695977"})
    assert response.status_code == 200 and not Order.objects.exists() and not charges()
    assert "is not a valid VAT number for DE" in response.content.decode()


def test_an_eu_business_buyer_pays_no_vat_and_the_order_says_why(client, shop):
    add(client)
    business = {**CARD, **BERLIN, "ship-vat_number": "DE136695976"}
    before = client.get("/checkout/").context["totals"]
    shown = client.post("/checkout/", {**business, "confirmed_total": before.total, "priced_for": ""}).context["totals"]
    assert shown.reverse_charge and shown.tax == 0
    response = client.post("/checkout/", {**business, "confirmed_total": shown.total})
    order = Order.objects.get()
    assert order.reverse_charge and order.vat_number == "DE136695976" and order.tax == 0
    assert "reverse charge (VAT number DE136695976)" in client.get(response["Location"]).content.decode()


def test_the_storefront_says_whether_prices_include_tax(client, chinook, settings):
    from catalog.models import Product

    url = Product.objects.get(sku=SKU).get_absolute_url()
    settings.SHOP_PRICES_INCLUDE_TAX = False
    assert "plus tax" in client.get(url).content.decode()
    assert "prices plus tax" in client.get("/c/rock/").content.decode()  # the listings say it once
    settings.SHOP_PRICES_INCLUDE_TAX = True
    assert "incl. VAT" in client.get(url).content.decode()
    assert "prices incl. VAT" in client.get("/c/rock/").content.decode()
