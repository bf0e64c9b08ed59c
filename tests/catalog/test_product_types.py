"""``ProductType.objects``: reads by name (cached with the catalog), facet attributes, the types
the migration creates, and a rename through the manager rewriting the products' ``type``."""

import datetime

import pytest
from django.core.exceptions import ValidationError

from catalog.store.cache import close_scope, open_scope
from catalog.models import Attribute, CatalogVersion, Pricing, Product, ProductType
from core.mongo.counter import count_operations
from tests.support.products import make_product


def test_the_migration_creates_the_chinook_types_with_their_fields():
    album = ProductType.objects.by_name("Audio Album")
    assert [a.code for a in album.attributes] == ["artist", "genre", "issue_date", "format", "tracks"]
    assert [(f.code, f.kind, f.unit) for f in album.attribute("tracks").fields] == [
        ("number", "number", ""), ("title", "text", ""), ("composer", "text", ""),
        ("duration", "number", "ms"), ("price", "number", "cents")]
    assert [a.code for a in album.variant_attributes] == ["format"]
    assert album.attribute("format").choices == ["Digital", "CD", "Vinyl"]
    assert album.attribute("genre").many and album.attribute("genre").kind == "text"
    film = ProductType.objects.by_name("Film")
    assert [a.code for a in film.attributes] == ["director", "writer", "actor", "genre", "rating",
                                                 "aspect_ratio", "issue_date"]
    assert ProductType.objects.names() == ["Audio Album", "Film", "TV Season"]
    assert ProductType.objects.by_name("Nope") is None


def test_facet_attributes_are_deduplicated_by_code_in_display_order():
    facets = ProductType.objects.facet_attributes(["Film", "Audio Album", "Nope"])
    assert [a.code for a in facets] == ["artist", "genre", "format"]
    assert ProductType.objects.facet_attributes([]) == []


def test_the_facets_of_every_type_build_each_type_once(monkeypatch):
    from catalog.listings import facets

    built = []
    from_document = type(ProductType.objects).from_document
    monkeypatch.setattr(type(ProductType.objects), "from_document",
                        lambda self, document, *a, **k: built.append(document["name"]) or
                        from_document(self, document, *a, **k))
    fields = facets.facet_fields()  # outside a request: computed
    assert [f["code"] for f in fields] == ["type", "artist", "genre", "format"]
    assert fields[2]["types"] == ["Audio Album", "Film", "TV Season"] and fields[1]["types"] == ["Audio Album"]
    # one model per type (before: all of them, then each again per type asked about)
    assert sorted(built) == ProductType.objects.names()


def test_a_stored_product_keeps_the_seeds_document_shape():
    product = make_product("Kind of Blue", artist="Miles Davis", genre=["Jazz"], year=1959, tracks=["So What"])
    document = Product.objects.collection.find_one({"sku": product.sku})
    assert document["type"] == "Audio Album"
    assert document["details"] == {
        "artist": "Miles Davis", "genre": ["Jazz"], "issue_date": datetime.datetime(1959, 1, 1),
        "tracks": [{"number": 1, "title": "So What", "composer": "", "duration": 180000, "price": 99}]}


def test_legacy_label_of_the_embedded_details_is_read_as_absent():
    product = make_product("Old")
    Product.objects.collection.update_one({"sku": product.sku}, {"$set": {"details._label": "catalog.AlbumDetails"}})
    details = Product.objects.get_by_sku(product.sku).details
    assert "_label" not in details and details["artist"] == "Artist"


def test_reads_of_a_type_in_a_request_are_cached_until_the_catalog_changes():
    token = open_scope(CatalogVersion.objects.tokens)
    try:
        ProductType.objects.by_name("Audio Album")
        with count_operations() as ops:
            assert ProductType.objects.by_name("Audio Album").name == "Audio Album"
        assert not [op for op in ops.operations if op[0] == "product_types"], ops.operations
        album = ProductType.objects.by_name("Audio Album")
        album.attributes.append(Attribute(code="label", kind="text"))
        ProductType.objects.save_type(album)  # bumps the catalog's version
        assert ProductType.objects.by_name("Audio Album").attribute("label") is not None
    finally:
        close_scope(token)


def test_renaming_a_type_through_the_manager_rewrites_its_products_type():
    make_product("One", sku="A-1")
    make_product("Two", sku="A-2", type="Film")
    album = ProductType.objects.by_name("Audio Album")
    album.name = "Record"
    ProductType.objects.save_type(album)
    assert Product.objects.get_by_sku("A-1").type == "Record"
    assert Product.objects.get_by_sku("A-2").type == "Film"
    assert ProductType.objects.by_name("Audio Album") is None
    Product.objects.get_by_sku("A-1").save()  # still valid against the renamed type


def test_a_product_of_an_unknown_type_is_refused():
    with pytest.raises(ValidationError) as caught:
        Product(sku="X-1", type="Spaceship", title="X", pricing=Pricing.from_prices(1, 1), details={}).save()
    assert list(caught.value.message_dict) == ["type"]
    assert not Product.objects.filter(sku="X-1").exists()
