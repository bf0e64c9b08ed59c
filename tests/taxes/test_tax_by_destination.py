"""Tax by destination (taxes.rates through orders.pricing._tax): worked examples for the UK
(prices including 20 % VAT), Germany (19 % with a line at 7 %), New York (no tax kept, and a
state rate), shipping at the weighted rate, lines that add up to the cent, the EU reverse
charge, and the fallback to SHOP_TAX_PERCENT."""

from dataclasses import dataclass
from decimal import Decimal

import pytest

from catalog.models import ProductType
from orders import pricing
from orders.forms import AddressForm
from taxes.models import TaxRate
from taxes.rates import round_half_up
from taxes.vat import clean_vat_number

VALID_DE_VAT = "DE 136,695 976"  # python-stdnum's documented valid example


@dataclass(frozen=True)
class Fact:
    weight: int = 0
    product_type: str = ""
    tax_class: str = ""
    product_id: object = None
    listed_in: tuple = ()


def rate(country, percent, tax_class="standard", region="", name="VAT"):
    return TaxRate.objects.create(country=country, region=region, tax_class=tax_class,
                                  percent=Decimal(percent), name=name)


def priced(lines, facts, country, region="", vat_number=""):
    address = {"country": country, "region": region}
    return pricing.price(lines, facts, pricing.PricingContext(address=address, vat_number=vat_number))


@pytest.fixture
def flat_shipping(settings):
    TaxRate.objects.all().delete()  # the seed rows (taxes 0002) when the database is fresh
    settings.SHIPPING_BANDS = [(None, 399)]
    settings.SHOP_TAX_PERCENT = 20
    settings.SHOP_PRICES_INCLUDE_TAX = False
    settings.SHOP_COUNTRY = "GB"


def test_uk_prices_include_20_percent_vat(flat_shipping, settings):
    settings.SHOP_PRICES_INCLUDE_TAX = True
    rate("GB", "20")
    figures = priced([{"sku": "A", "qty": 1, "price": 1200}], {}, "GB")
    line = figures.lines[0]
    assert (line.tax, line.net, line.paid) == (200, 1000, 1200)  # 1200 x 20/120, inside the price
    assert figures.shipping_tax == 67  # 399 x 20/120 = 66.5, half up
    assert figures.total == 1200 + 399  # the prices shown are what is paid
    assert figures.tax == 267 and figures.tax_included and figures.tax_name == "VAT"


def test_germany_19_percent_with_a_line_at_the_reduced_7(flat_shipping):
    rate("DE", "19"), rate("DE", "7", "reduced")
    facts = {"A": Fact(tax_class="standard"), "B": Fact(tax_class="reduced")}
    figures = priced([{"sku": "A", "qty": 1, "price": 1000}, {"sku": "B", "qty": 1, "price": 500}], facts, "DE")
    assert [(line.tax, line.tax_rate) for line in figures.lines] == [(190, "19"), (35, "7")]
    # Shipping at the goods' weighted rate: (1000 x 19 + 500 x 7) / 1500 = 15 %; 399 x 15 % = 59.85.
    assert (figures.shipping_tax_rate, figures.shipping_tax) == ("15", 60)
    assert figures.tax == 190 + 35 + 60
    assert figures.total == 1500 + 399 + 285
    assert figures.tax_percent == ""  # the lines' rates differ


def test_new_york_with_no_tax_kept_and_with_a_state_rate(flat_shipping):
    rate("US", "0", name="Sales tax")
    lines = [{"sku": "A", "qty": 1, "price": 1000}]
    none = priced(lines, {}, "US", "NY")
    assert (none.tax, none.total, none.tax_name) == (0, 1399, "Sales tax")
    rate("US", "8.875", region="NY", name="Sales tax")
    state = priced(lines, {}, "US", "NY")
    assert state.lines[0].tax_rate == "8.875" and state.lines[0].tax == 89  # 88.75
    assert state.shipping_tax == 35  # 399 x 8.875 % = 35.41
    assert state.total == 1000 + 399 + 89 + 35
    assert priced(lines, {}, "US", "CA").tax == 0  # another state keeps the country's row


def test_a_three_line_order_adds_up_to_the_cent(flat_shipping):
    rate("DE", "19"), rate("DE", "7", "reduced")
    facts = {"A": Fact(), "B": Fact(tax_class="reduced"), "C": Fact(tax_class="zero")}
    lines = [{"sku": "A", "qty": 3, "price": 333}, {"sku": "B", "qty": 7, "price": 19}, {"sku": "C", "qty": 1, "price": 250}]
    figures = priced(lines, facts, "DE")
    # Each line rounded on its own: 999 x 19 % = 189.81; 133 x 7 % = 9.31; zero-rated: 0.
    assert [line.tax for line in figures.lines] == [190, 9, 0]
    assert figures.tax == 190 + 9 + 0 + figures.shipping_tax
    weighted = (999 * 19 + 133 * 7) / (999 + 133 + 250)
    assert figures.shipping_tax == round(399 * weighted / 100)
    assert figures.total == figures.subtotal + figures.shipping + figures.tax


def test_the_product_type_gives_the_class_and_the_product_overrides_it(flat_shipping):
    rate("DE", "19"), rate("DE", "7", "reduced")
    ProductType.objects.create(name="Book", slug="book", tax_class="reduced")
    facts = {"A": Fact(product_type="Book"), "B": Fact(product_type="Book", tax_class="standard")}
    figures = priced([{"sku": "A", "qty": 1, "price": 1000}, {"sku": "B", "qty": 1, "price": 1000}], facts, "DE")
    assert [(line.tax_class, line.tax_rate) for line in figures.lines] == [("reduced", "7"), ("standard", "19")]


def test_a_country_with_no_rate_kept_and_no_address_use_shop_tax_percent(flat_shipping):
    lines = [{"sku": "A", "qty": 1, "price": 1000}]
    assert priced(lines, {}, "IS").lines[0].tax_rate == "20"
    assert pricing.price(lines, {}).tax == 200 + 80
    zero = pricing.price(lines, {"A": Fact(tax_class="zero")})
    assert zero.lines[0].tax == 0 and zero.shipping_tax == 0


def test_an_eu_business_buyer_gets_the_reverse_charge(flat_shipping):
    rate("DE", "19")
    figures = priced([{"sku": "A", "qty": 1, "price": 1000}], {}, "DE", vat_number=VALID_DE_VAT)
    assert figures.reverse_charge and figures.vat_number == "DE136695976"
    assert (figures.tax, figures.shipping_tax, figures.total) == (0, 0, 1399)


def test_no_reverse_charge_in_the_shops_own_country(flat_shipping, settings):
    settings.SHOP_COUNTRY = "DE"
    rate("DE", "19")
    figures = priced([{"sku": "A", "qty": 1, "price": 1000}], {}, "DE", vat_number=VALID_DE_VAT)
    assert not figures.reverse_charge and figures.lines[0].tax == 190


def test_a_vat_number_failing_its_check_is_refused_with_a_clear_message(settings):
    base = {"ship-name": "Erika", "ship-line1": "Unter den Linden 1", "ship-city": "Berlin",
            "ship-postcode": "10117", "ship-country": "DE"}
    form = AddressForm({**base, "ship-vat_number": "DE136695977"})
    assert not form.is_valid()
    assert "is not a valid VAT number for DE" in form.errors["vat_number"][0]
    form = AddressForm({**base, "ship-vat_number": "FR40303265045"})
    assert not form.is_valid() and "not from the country of the address" in form.errors["vat_number"][0]
    form = AddressForm({**base, "ship-vat_number": VALID_DE_VAT})
    assert form.is_valid(), form.errors
    assert form.buyer_vat_number() == "DE136695976"
    assert clean_vat_number("", "DE") == ""


def test_a_us_address_needs_its_state():
    base = {"ship-name": "Al", "ship-line1": "350 5th Ave", "ship-city": "New York",
            "ship-postcode": "10118", "ship-country": "US"}
    assert "region" in AddressForm(base).errors
    form = AddressForm({**base, "ship-region": "new york"})
    assert form.is_valid(), form.errors
    assert form.address()["region"] == "NY"


def test_round_half_up():
    from fractions import Fraction
    assert [round_half_up(Fraction(n, 2)) for n in (1, 3, 5)] == [1, 2, 3]
