"""Product types in the admin: a type created there, a product of it added through the form
built from it, refusals as form errors that change nothing, a type changed with products stored."""

import html

import pytest
from django.contrib.admin.models import LogEntry

from catalog.models import Pricing, Product, ProductType

TYPES = "/admin/catalog/producttype/"
PRODUCTS_ADD = "/admin/catalog/product/add/"

FIELD_KEYS = ("code", "label", "kind", "unit", "choices", "required", "many", "facet", "variant")


def management(prefix, count):
    return {f"{prefix}-TOTAL_FORMS": str(count), f"{prefix}-INITIAL_FORMS": "0",
            f"{prefix}-MIN_NUM_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "1000"}


def type_data(name="T-shirt", attributes=(), slug=""):
    """The type form's POST: ``attributes`` a list of dicts (``fields``: a list of dicts too)."""
    data = {"name": name, "slug": slug, **management("attributes", len(attributes))}
    for i, attribute in enumerate(attributes):
        prefix = f"attributes-{i}"
        fields = attribute.get("fields", [])
        data.update(management(f"{prefix}-fields", len(fields)))
        data.update(row_data(prefix, attribute))
        for j, field in enumerate(fields):
            data.update(row_data(f"{prefix}-fields-{j}", field))
    return data


def row_data(prefix, row):
    """One attribute's or records field's form row: its ``FIELD_KEYS`` as posted (a checked box
    as ``"on"``, an unchecked one and an empty value left out), ``kind`` text by default."""
    data = {f"{prefix}-kind": "text"}
    for key in FIELD_KEYS:
        value = row.get(key, "")
        if value is True:
            value = "on"
        if value not in (False, ""):
            data[f"{prefix}-{key}"] = value
    return data


SHIRT = [
    {"code": "brand", "label": "Brand", "required": True},
    {"code": "size", "label": "Size", "kind": "choice", "choices": "S,M,L", "variant": True, "facet": True},
    {"code": "weight", "label": "Weight", "kind": "number", "unit": "g"},
    {"code": "colours", "label": "Colours", "kind": "multichoice", "choices": "red,blue"},
    {"code": "organic", "label": "Organic", "kind": "boolean"},
    {"code": "released", "label": "Released", "kind": "date"},
    {"code": "care", "label": "Care", "kind": "records", "fields": [
        {"code": "step", "kind": "text", "required": True}, {"code": "minutes", "kind": "number"}]},
]


def product_data(**changes):
    data = {"sku": "TEE-1", "title": "Plain tee", "description": "", "categories": [],
            "list_price": "20.00", "retail_price": "15.00", "weight": "", "width": "", "height": "", "depth": "",
            "details_brand": "Acme", "details_size": "M", "details_weight": "180",
            "details_colours": ["red", "blue"], "details_organic": "true", "details_released": "2024-05-01",
            "details_care": "Wash cold | 30\nDry flat"}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


@pytest.fixture
def shirt_type(admin_client):
    response = admin_client.post(f"{TYPES}add/", type_data(attributes=SHIRT))
    assert response.status_code == 302, response.content.decode()[-4000:]
    return ProductType.objects.by_name("T-shirt")


def test_a_type_created_in_the_admin_is_stored_with_its_attributes_embedded(shirt_type):
    assert shirt_type.slug == "t-shirt"
    assert [a.code for a in shirt_type.attributes] == ["brand", "size", "weight", "colours", "organic",
                                                         "released", "care"]
    size = shirt_type.attribute("size")
    assert (size.kind, size.choices, size.variant, size.facet) == ("choice", ["S", "M", "L"], True, True)
    assert [a.code for a in shirt_type.variant_attributes] == ["size"]
    assert [(f.code, f.kind, f.required) for f in shirt_type.attribute("care").fields] == [
        ("step", "text", True), ("minutes", "number", False)]
    document = ProductType.objects.collection.find_one({"name": "T-shirt"})
    assert document["attributes"][1]["choices"] == ["S", "M", "L"]


def test_adding_a_product_starts_with_its_type(admin_client, shirt_type):
    html = admin_client.get(PRODUCTS_ADD).content.decode()
    assert 'href="?type=T-shirt"' in html and 'href="?type=Audio%20Album"' in html
    html = admin_client.get(PRODUCTS_ADD, {"type": "T-shirt"}).content.decode()
    for name in ("details_brand", "details_size", "details_weight", "details_colours", "details_organic",
                 "details_released", "details_care"):
        assert f'name="{name}"' in html
    assert "details_artist" not in html
    assert "One record per line: step | minutes." in html
    assert "There is no product type" in admin_client.get(PRODUCTS_ADD, {"type": "Nope"}).content.decode()


def test_a_product_of_the_new_type_is_added_through_the_form_built_from_it(admin_client, client, shirt_type):
    import datetime

    response = admin_client.post(f"{PRODUCTS_ADD}?type=T-shirt", product_data())
    assert response.status_code == 302, response.content.decode()[-3000:]
    product = Product.objects.get_by_sku("TEE-1")
    assert product.type == "T-shirt"
    assert product.details == {
        "brand": "Acme", "size": "M", "weight": 180, "colours": ["red", "blue"], "organic": True,
        "released": datetime.datetime(2024, 5, 1, tzinfo=datetime.UTC),
        "care": [{"step": "Wash cold", "minutes": 30}, {"step": "Dry flat"}],
    }
    stored = Product.objects.collection.find_one({"sku": "TEE-1"})["details"]
    assert stored["released"] == datetime.datetime(2024, 5, 1)  # a BSON date
    page = client.get("/p/TEE-1/")
    assert page.status_code == 200 and "Plain tee" in page.content.decode()
    for row in ("<dt>Brand</dt><dd>Acme</dd>", "<dt>Weight</dt><dd>180 g</dd>", "<dt>Organic</dt><dd>Yes</dd>",
                "<dt>Colours</dt><dd>red, blue</dd>", "<dt>Released</dt><dd>1 May 2024</dd>"):
        assert row in page.content.decode()
    html = admin_client.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert 'name="details_brand" value="Acme"' in html
    assert "Wash cold | 30\nDry flat | </textarea>" in html


@pytest.mark.parametrize("changes, field, message", [
    ({"details_brand": ""}, "details_brand", "This value is required."),
    ({"details_weight": "heavy"}, "details_weight", "Enter a number."),
    ({"details_size": "XL"}, "details_size", "Select a valid choice."),
    ({"details_colours": ["green"]}, "details_colours", "Select a valid choice."),
    ({"details_released": "soon"}, "details_released", "Enter a valid date/time."),
    ({"details_organic": "maybe"}, None, None),  # a NullBooleanField reads anything else as unknown
    ({"details_care": "Wash | cold"}, "details_care", "Record 1, minutes: Enter a number."),
    ({"details_care": " | 30"}, "details_care", "Record 1, step: This value is required."),
])
def test_a_value_of_the_wrong_kind_or_a_missing_one_is_a_form_error_and_writes_nothing(
        admin_client, shirt_type, changes, field, message):
    response = admin_client.post(f"{PRODUCTS_ADD}?type=T-shirt", product_data(**changes))
    if message is None:
        assert response.status_code == 302
        assert "organic" not in Product.objects.get_by_sku("TEE-1").details
        return
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert any(message in e for e in errors[field]), errors
    assert not Product.objects.filter(sku="TEE-1").exists()


def test_every_write_path_refuses_an_unknown_attribute_and_writes_nothing(shirt_type):
    from django.core.exceptions import ValidationError

    product = Product(sku="TEE-2", type="T-shirt", title="Tee", pricing=Pricing.from_prices(100, 100),
                      details={"brand": "Acme", "flavour": "mint"})
    with pytest.raises(ValidationError) as caught:
        product.save()
    assert caught.value.message_dict == {"flavour": ["'flavour' is not an attribute of this product type."]}
    with pytest.raises(ValidationError):
        Product.writes.sync([product])
    product.type = "Spaceship"
    with pytest.raises(ValidationError) as caught:
        Product.writes.sync([product])
    assert list(caught.value.message_dict) == ["type"]
    assert not Product.objects.filter(sku="TEE-2").exists()


@pytest.mark.parametrize("attributes, message", [
    ([{"code": "a"}, {"code": "a"}], "The code 'a' is used twice."),
    ([{"code": "Bad Code"}], "Use lower-case letters"),
    ([{"code": "size", "kind": "choice"}], "size: a choice needs choices."),
    ([{"code": "care", "kind": "records"}], "care: a list of records needs fields."),
    ([{"code": "weight", "kind": "number", "many": True}], "weight: only text may have many values."),
])
def test_a_type_that_does_not_hold_together_is_a_form_error(admin_client, attributes, message):
    response = admin_client.post(f"{TYPES}add/", type_data(attributes=attributes))
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode())
    assert ProductType.objects.by_name("T-shirt") is None
    assert LogEntry.objects.count() == 0


def test_the_migrated_types_are_listed_and_editable(admin_client):
    html = admin_client.get(TYPES).content.decode()
    assert "Audio Album" in html and "TV Season" in html and "Film" in html
    album = ProductType.objects.by_name("Audio Album")
    html = admin_client.get(f"{TYPES}{album.pk}/change/").content.decode()
    assert 'value="issue_date"' in html and 'value="Digital,CD,Vinyl"' in html


# -- a type changed with products stored ---------------------------------------

def _change(admin_client, product_type, attributes, name=None):
    data = type_data(name=name or product_type.name, slug=product_type.slug, attributes=attributes)
    return admin_client.post(f"{TYPES}{product_type.pk}/change/", data)


def _tee(sku="TEE-1", **details):
    product = Product(sku=sku, type="T-shirt", title=f"Tee {sku}", pricing=Pricing.from_prices(100, 100),
                      details={"brand": "Acme", **details})
    product.save()
    return product


def test_renaming_a_type_renames_it_on_its_products(admin_client, shirt_type):
    _tee("TEE-1")
    _tee("TEE-2")
    response = _change(admin_client, shirt_type, SHIRT, name="Tee")
    assert response.status_code == 302
    assert ProductType.objects.by_name("T-shirt") is None
    assert {p.type for p in Product.objects.all()} == {"Tee"}
    assert Product.objects.get_by_sku("TEE-1").details == {"brand": "Acme"}


def test_renaming_a_choice_rewrites_the_stored_values(admin_client, shirt_type):
    _tee("TEE-1", size="S", colours=["red", "blue"])
    _tee("TEE-2", size="M", colours=["blue"])
    attributes = [dict(a) for a in SHIRT]
    attributes[1]["choices"] = "S => Small,M,L"
    attributes[3]["choices"] = "red,blue => navy"
    assert _change(admin_client, shirt_type, attributes).status_code == 302
    shirt = ProductType.objects.by_name("T-shirt")
    assert shirt.attribute("size").choices == ["Small", "M", "L"]
    assert shirt.attribute("colours").choices == ["red", "navy"]
    assert Product.objects.get_by_sku("TEE-1").details == {"brand": "Acme", "size": "Small", "colours": ["red", "navy"]}
    assert Product.objects.get_by_sku("TEE-2").details == {"brand": "Acme", "size": "M", "colours": ["navy"]}


def test_removing_a_choice_products_hold_is_refused(admin_client, shirt_type):
    _tee("TEE-1", size="S")
    attributes = [dict(a) for a in SHIRT]
    attributes[1]["choices"] = "M,L"
    response = _change(admin_client, shirt_type, attributes)
    assert response.status_code == 200
    assert "size: 1 product(s) hold the choice 'S'" in html.unescape(response.content.decode())
    assert ProductType.objects.by_name("T-shirt").attribute("size").choices == ["S", "M", "L"]
    attributes[1]["choices"] = "M,L,XL"  # S held by no product any more: removed freely
    Product.objects.get_by_sku("TEE-1").delete()
    assert _change(admin_client, shirt_type, attributes).status_code == 302


def test_a_required_attribute_added_later_is_asked_for_at_the_next_save(admin_client, shirt_type):
    tee = _tee("TEE-1", size="S")
    attributes = [*SHIRT, {"code": "fabric", "label": "Fabric", "required": True}]
    assert _change(admin_client, shirt_type, attributes).status_code == 302
    # Stored products are not rewritten: the value is absent, and the page still shows.
    assert "fabric" not in Product.objects.collection.find_one({"sku": "TEE-1"})["details"]
    assert admin_client.get(f"/admin/catalog/product/{tee.pk}/change/").status_code == 200
    data = product_data(sku="TEE-1", title="Tee TEE-1", details_weight="", details_colours=[],
                        details_released="", details_care="", details_organic="")
    response = admin_client.post(f"/admin/catalog/product/{tee.pk}/change/", data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["details_fabric"] == ["This value is required."]
    assert Product.objects.get_by_sku("TEE-1").details == {"brand": "Acme", "size": "S"}
    response = admin_client.post(f"/admin/catalog/product/{tee.pk}/change/", {**data, "details_fabric": "Linen"})
    assert response.status_code == 302
    assert Product.objects.get_by_sku("TEE-1").details["fabric"] == "Linen"


def test_a_removed_attribute_stays_stored_unshown_until_the_products_next_save(admin_client, shirt_type):
    tee = _tee("TEE-1", size="S", weight=180)
    attributes = [a for a in SHIRT if a["code"] != "weight"]
    assert _change(admin_client, shirt_type, attributes).status_code == 302
    assert Product.objects.collection.find_one({"sku": "TEE-1"})["details"]["weight"] == 180
    html = admin_client.get(f"/admin/catalog/product/{tee.pk}/change/").content.decode()
    assert "details_weight" not in html
    data = product_data(sku="TEE-1", title="Tee TEE-1", details_weight=None, details_colours=[],
                        details_released="", details_care="", details_organic="")
    assert admin_client.post(f"/admin/catalog/product/{tee.pk}/change/", data).status_code == 302
    assert "weight" not in Product.objects.collection.find_one({"sku": "TEE-1"})["details"]


def test_a_product_read_and_saved_after_an_attribute_was_removed_drops_its_value(admin_client, shirt_type):
    from django.core.exceptions import ValidationError

    _tee("TEE-1", size="S", weight=180)
    assert _change(admin_client, shirt_type, [a for a in SHIRT if a["code"] != "weight"]).status_code == 302
    tee = Product.objects.get_by_sku("TEE-1")
    assert tee.details["weight"] == 180  # still read as stored
    tee.title = "Renamed tee"
    tee.save()  # any write path: the stale value is dropped, not refused
    assert Product.objects.collection.find_one({"sku": "TEE-1"})["details"] == {"brand": "Acme", "size": "S"}
    tee.details["weight"] = 200  # but a value newly given under that code is refused
    with pytest.raises(ValidationError):
        tee.save()


def test_a_type_products_have_cannot_be_deleted(admin_client, shirt_type):
    tee = _tee("TEE-1")
    url = f"{TYPES}{shirt_type.pk}/delete/"
    response = admin_client.post(url, {"post": "yes"}, follow=True)
    assert "T-shirt cannot be deleted: 1 product(s) have this type." in response.content.decode()
    assert ProductType.objects.by_name("T-shirt") is not None
    tee.delete()
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert ProductType.objects.by_name("T-shirt") is None
