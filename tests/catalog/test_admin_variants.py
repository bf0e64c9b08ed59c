"""Variants in the product admin (``catalog/admin/variants.py``): added, edited, removed; a SKU
used twice or an option the type lacks is a form error and writes nothing."""

from catalog.models import Pricing, Product, Variant
from inventory.models import Inventory
from tests.support.admin import album_data
from tests.support.products import make_product

ADD = "/admin/catalog/product/add/"


def rows(*variants, extra=2, stored=0):
    """The variants formset's fields for ``variants`` (``(sku, options text, list, retail)``),
    the first ``stored`` of them the stored ones, and ``extra`` blank rows."""
    data = {"variants-TOTAL_FORMS": str(len(variants) + extra), "variants-INITIAL_FORMS": str(stored),
            "variants-MIN_NUM_FORMS": "0", "variants-MAX_NUM_FORMS": "1000"}
    for i, (sku, options, list_price, retail_price) in enumerate(variants):
        data.update({f"variants-{i}-sku": sku, f"variants-{i}-options": options,
                     f"variants-{i}-list_price": list_price, f"variants-{i}-retail_price": retail_price})
    return data


def stock_ids():
    return sorted(d["_id"] for d in Inventory.objects.collection.find({}, {"_id": 1}))


def test_a_product_added_with_variants_gets_a_stock_record_per_variant(admin_client):
    response = admin_client.post(ADD, {**album_data(), **rows(
        ("NEW-1-CD", "format: CD", "12.99", "11.99"), ("NEW-1-LP", "format: Vinyl", "24.99", "24.99"))})
    assert response.status_code == 302, response.content.decode()[-3000:]
    product = Product.objects.get_by_sku("NEW-1")
    assert [(v.sku, v.options, v.pricing.retail) for v in product.variants] == [
        ("NEW-1-CD", {"format": "CD"}, 1199), ("NEW-1-LP", {"format": "Vinyl"}, 2499)]
    assert product.pricing.retail == 1199 and product.skus == ["NEW-1", "NEW-1-CD", "NEW-1-LP"]
    assert stock_ids() == ["NEW-1-CD", "NEW-1-LP"]  # the page's own SKU sells nothing
    page = admin_client.get(f"/admin/catalog/product/{product.pk}/change/").content.decode()
    assert 'value="NEW-1-LP"' in page and "format: Vinyl" in page


def test_a_product_without_variants_sells_its_own_sku(admin_client):
    assert admin_client.post(ADD, {**album_data(), **rows()}).status_code == 302
    assert Product.objects.get_by_sku("NEW-1").variants == []
    assert stock_ids() == ["NEW-1"]


def test_a_duplicate_variant_sku_is_a_form_error_and_writes_nothing(admin_client):
    other = make_product("Other", sku="OTHER")
    other.variants = [Variant(sku="TAKEN-LP", options={"format": "Vinyl"}, pricing=Pricing.from_prices(100, 100))]
    other.save()
    before = list(Product.objects.collection.find({}).sort("sku")), stock_ids()
    for variants, message in [
        ([("TAKEN-LP", "format: Vinyl", "10", "10")], "already used by product OTHER"),
        ([("OTHER", "format: Vinyl", "10", "10")], "already used by product OTHER"),
        ([("NEW-1-X", "format: CD", "10", "10"), ("NEW-1-X", "format: Vinyl", "10", "10")], "used twice"),
        ([("NEW-1", "format: CD", "10", "10")], "used twice"),
        ([("NEW-1-X", "format: Cassette", "10", "10")], "is not one of the choices"),
        ([("NEW-1-X", "colour: red", "10", "10")], "not a variant attribute"),
        ([("NEW-1-X", "format CD", "10", "10")], "code: value"),
        ([("NEW-1-X", "format: CD", "10", "12")], "cannot be above the list price"),
    ]:
        response = admin_client.post(ADD, {**album_data(), **rows(*variants)})
        assert response.status_code == 200, message
        assert message in response.content.decode(), message
    refused = admin_client.post(ADD, {**album_data(sku="TAKEN-LP"), **rows()})
    assert "already used by a variant of product OTHER" in refused.content.decode()
    refused = admin_client.post(ADD, album_data(sku="TAKEN-LP"))  # a form without the variants' rows
    assert "already used by a variant of product OTHER" in refused.content.decode()
    assert (list(Product.objects.collection.find({}).sort("sku")), stock_ids()) == before


def test_variants_edited_and_removed(admin_client):
    admin_client.post(ADD, {**album_data(), **rows(("NEW-1-CD", "format: CD", "12.99", "11.99"))})
    product = Product.objects.get_by_sku("NEW-1")
    url = f"/admin/catalog/product/{product.pk}/change/"
    data = {**album_data(), **rows(("NEW-1-CD", "format: CD", "12.99", "9.99"),
                                   ("NEW-1-LP", "format: Vinyl", "30", "25"), stored=1)}
    assert admin_client.post(url, data).status_code == 302
    product = Product.objects.get_by_sku("NEW-1")
    assert [(v.sku, v.pricing.retail) for v in product.variants] == [("NEW-1-CD", 999), ("NEW-1-LP", 2500)]
    assert stock_ids() == ["NEW-1-CD", "NEW-1-LP"]
    data = {**album_data(), **rows(("NEW-1-CD", "format: CD", "12.99", "9.99"),
                                   ("NEW-1-LP", "format: Vinyl", "30", "25"), stored=2)}
    data["variants-0-DELETE"] = "on"
    assert admin_client.post(url, data).status_code == 302
    assert [v.sku for v in Product.objects.get_by_sku("NEW-1").variants] == ["NEW-1-LP"]


def test_stored_variants_left_as_they_were_are_kept(admin_client):
    admin_client.post(ADD, {**album_data(), **rows(("NEW-1-CD", "format: CD", "12.99", "11.99"))})
    product = Product.objects.get_by_sku("NEW-1")
    data = {**album_data(title="Renamed"), **rows(("NEW-1-CD", "format: CD", "12.99", "11.99"), stored=1)}
    assert admin_client.post(f"/admin/catalog/product/{product.pk}/change/", data).status_code == 302
    product = Product.objects.get_by_sku("NEW-1")
    assert product.title == "Renamed" and [v.sku for v in product.variants] == ["NEW-1-CD"]


def test_the_product_list_sums_and_filters_by_the_variants_stock(admin_client):
    from tests.support.admin import listed_skus

    product = make_product("Vinyl only", sku="VO")
    product.variants = [Variant(sku=f"VO-{n}", options={"format": f}, pricing=Pricing.from_prices(100, 100))
                        for n, f in ((1, "CD"), (2, "Vinyl"))]
    product.save()
    make_product("Plain", sku="PL")
    Inventory.objects.ensure_stock(["VO-1", "VO-2", "PL"], 0)
    Inventory.objects.set_stock("VO-2", 4)
    html = admin_client.get("/admin/catalog/product/").content.decode()
    assert '<td class="field-available">4</td>' in html
    assert listed_skus(admin_client.get("/admin/catalog/product/", {"available": "yes"})) == ["VO"]
    assert listed_skus(admin_client.get("/admin/catalog/product/", {"available": "low"})) == ["VO"]
    assert listed_skus(admin_client.get("/admin/catalog/product/", {"available": "no"})) == ["PL"]
