"""``catalog.products.attributes``: every kind's values cleaned and normalised, every wrong one refused."""

import datetime
import decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.products.attributes import clean_details, clean_variant_options
from catalog.models import Attribute, ProductType, RecordField


def make_type(*attributes):
    return ProductType(name="Thing", slug="thing", attributes=list(attributes))


SHIRT = make_type(
    Attribute(code="brand", kind="text", required=True),
    Attribute(code="tags", kind="text", many=True),
    Attribute(code="weight", kind="number", unit="g"),
    Attribute(code="size", kind="choice", choices=["S", "M", "L"], variant=True),
    Attribute(code="colours", kind="multichoice", choices=["red", "blue"]),
    Attribute(code="released", kind="date"),
    Attribute(code="organic", kind="boolean"),
    Attribute(code="parts", kind="records", fields=[
        RecordField(code="name", kind="text", required=True), RecordField(code="grams", kind="number")]),
)


def errors(details, product_type=SHIRT):
    with pytest.raises(ValidationError) as caught:
        clean_details(product_type, details)
    return caught.value.message_dict


def test_every_kind_is_normalised():
    cleaned = clean_details(SHIRT, {
        "brand": "Acme", "tags": ["soft", "new"], "weight": "180", "size": "M", "colours": ["red"],
        "released": "2024-03-01", "organic": "yes", "parts": [{"name": "sleeve", "grams": "20.5"}],
    })
    assert cleaned == {
        "brand": "Acme", "tags": ["soft", "new"], "weight": 180, "size": "M", "colours": ["red"],
        "released": datetime.datetime(2024, 3, 1, tzinfo=datetime.UTC), "organic": True,
        "parts": [{"name": "sleeve", "grams": 20.5}],
    }


@pytest.mark.parametrize("value, stored", [
    (12, 12), (12.0, 12), (2.5, 2.5), ("7", 7), (" 7.25 ", 7.25), (decimal.Decimal("3.00"), 3),
])
def test_numbers(value, stored):
    assert clean_details(SHIRT, {"brand": "A", "weight": value})["weight"] == stored


@pytest.mark.parametrize("value", ["heavy", True, [1], {"g": 1}, float("nan"), "inf", 2**70])
def test_a_number_of_the_wrong_kind_is_refused(value):
    assert list(errors({"brand": "A", "weight": value})) == ["weight"]


@pytest.mark.parametrize("value, stored", [
    ("2024-03-01 10:00", datetime.datetime(2024, 3, 1, 10, 0, tzinfo=datetime.UTC)),
    (datetime.date(2024, 3, 1), datetime.datetime(2024, 3, 1, tzinfo=datetime.UTC)),
    (datetime.datetime(2024, 3, 1, 12, 0), datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.UTC)),
    (datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
     datetime.datetime(2024, 3, 1, 10, 0, tzinfo=datetime.UTC)),
])
def test_dates_become_utc_datetimes(value, stored):
    assert clean_details(SHIRT, {"brand": "A", "released": value})["released"] == stored


@pytest.mark.parametrize("value, stored", [
    (True, True), (False, False), ("no", False), ("Yes", True), ("off", False), (1, True), (0, False),
])
def test_yes_no(value, stored):
    assert clean_details(SHIRT, {"brand": "A", "organic": value})["organic"] is stored


@pytest.mark.parametrize("code, value", [
    ("brand", 12), ("tags", [1, 2]), ("size", "XL"), ("size", ["S"]), ("colours", ["green"]),
    ("colours", 3), ("released", "last tuesday"), ("released", 12), ("organic", "maybe"),
    ("organic", 2), ("parts", "sleeve"), ("parts", [{"grams": 1}]), ("parts", [{"name": "x", "grams": "a"}]),
    ("parts", [{"name": "x", "colour": "red"}]), ("parts", ["sleeve"]),
])
def test_each_kind_refuses_a_value_of_the_wrong_kind(code, value):
    details = {"brand": "A", code: value} if code != "brand" else {"brand": value}
    assert list(errors(details)) == [code]


def test_a_record_error_names_the_record_and_its_field():
    message = errors({"brand": "A", "parts": [{"name": "a"}, {"name": "b", "grams": "x"}]})["parts"][0]
    assert message == "Record 2, grams: Enter a number."


def test_a_missing_required_value_and_an_unknown_code_are_refused_together():
    found = errors({"brand": "", "flavour": "mint"})
    assert found == {"brand": ["This value is required."],
                     "flavour": ["'flavour' is not an attribute of this product type."]}
    assert list(errors({})) == ["brand"]


def test_details_must_be_a_subdocument():
    assert list(errors(["brand"])) == ["details"]


def test_empty_optional_values_are_kept_and_none_is_left_out():
    assert clean_details(SHIRT, {"brand": "A", "tags": [], "weight": None}) == {"brand": "A", "tags": []}


def test_a_single_text_for_many_becomes_a_list():
    assert clean_details(SHIRT, {"brand": "A", "tags": "soft"})["tags"] == ["soft"]


def test_variant_options_take_only_the_variant_attributes():
    assert clean_variant_options(SHIRT, {"size": "L"}) == {"size": "L"}
    with pytest.raises(ValidationError) as caught:
        clean_variant_options(SHIRT, {"size": "XL", "brand": "Acme"})
    assert set(caught.value.message_dict) == {"size", "brand"}


def test_a_required_variant_attribute_must_be_given():
    product_type = make_type(Attribute(code="size", kind="choice", choices=["S"], variant=True, required=True))
    with pytest.raises(ValidationError) as caught:
        clean_variant_options(product_type, {})
    assert caught.value.message_dict == {"size": ["This value is required."]}
