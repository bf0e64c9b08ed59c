"""Operator commands: load_catalog --stock, restock, expire_carts, cleanup_inventory, check_inventory."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from inventory.models import Cart, Inventory

from tests.support.inventory import add, age_carts, age_reservations, inventory, stock


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_load_catalog_gives_every_product_stock_and_never_overwrites(settings):
    from catalog.models import Product

    out = run("load_catalog", "--stock", "7")
    # Every SKU sold: 313 albums' own, and the CD and vinyl variants of 34 (catalog/transfer/chinook.py).
    skus = [sku for d in Product.objects.collection.find({}, {"sku": 1, "variants.sku": 1})
            for sku in ([v["sku"] for v in d.get("variants") or []] or [d["sku"]])]
    assert "Inventory: 381 created with 7 units each" in out
    assert Inventory.objects.collection.count_documents({}) == len(skus) == 381
    assert inventory("CHK-0003") is None and inventory("CHK-0003-LP")["qty"] == 7
    assert inventory("CHK-0001")["qty"] == 7
    Inventory.objects.set_stock("CHK-0001", 2)
    out = run("load_catalog", "--stock", "9")
    assert "Inventory: 0 created" in out
    assert inventory("CHK-0001")["qty"] == 2
    assert inventory("CHK-0002")["qty"] == 7


def test_load_catalog_default_stock_comes_from_settings(settings):
    settings.INVENTORY_DEFAULT_STOCK = 3
    call_command("load_catalog", verbosity=0, stdout=StringIO())
    assert inventory("CHK-0001")["qty"] == 3


def test_load_catalog_refuses_a_negative_stock():
    with pytest.raises(CommandError, match="--stock"):
        run("load_catalog", "--stock", "-1")
    assert Inventory.objects.collection.count_documents({}) == 0


def test_restock(chinook):
    Inventory.objects.set_stock("CHK-0001", 1)
    assert "CHK-0001: +5, 6 available." in run("restock", "CHK-0001", "5")
    assert inventory("CHK-0001")["qty"] == 6


@pytest.mark.parametrize("sku, qty, reason", [
    ("NOPE", "5", "No product"), ("CHK-0001", "0", "at least one"),
    ("CHK-0001", "-3", "at least one"), ("CHK-0001", "many", "whole number"),
])
def test_restock_bad_input(chinook, sku, qty, reason):
    before = inventory("CHK-0001")["qty"]
    with pytest.raises(CommandError, match=reason):
        run("restock", sku, qty)
    assert inventory("CHK-0001")["qty"] == before


def test_expire_carts_command_prints_what_it_changed():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    age_carts(600)
    assert "Expired 1 cart(s); returned 1 reservation(s)" in run("expire_carts", "--timeout", "60")
    assert "Expired 0 cart(s); returned 0" in run("expire_carts", "--timeout", "60")
    assert inventory("A")["qty"] == 5
    with pytest.raises(CommandError):
        run("expire_carts", "--timeout", "-5")


def test_cleanup_inventory_command_prints_what_it_changed():
    stock("A", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    Cart.objects.collection.delete_one({"_id": cart.id})
    age_reservations(7200)
    out = run("cleanup_inventory", "--timeout", "3600")
    assert "Returned 1 reservation(s)" in out
    assert "Returned 0 reservation(s)" in run("cleanup_inventory", "--timeout", "3600")
    assert inventory("A")["qty"] == 5


def test_check_inventory_passes_then_fails_naming_the_sku():
    stock("A", 5)
    stock("B", 5)
    cart = Cart.objects.create_cart()
    add(cart.id, "A", 2)
    assert "holds" in run("check_inventory")
    Inventory.objects.collection.update_one({"_id": "B"}, {"$inc": {"qty": -1}})
    with pytest.raises(CommandError, match="1 SKU\\(s\\): B\\.$"):
        run("check_inventory")


def test_restock_logs_what_it_changed(caplog, chinook):
    from io import StringIO

    from django.core.management import call_command

    with caplog.at_level("INFO", logger="shop.commands"):
        call_command("restock", "CHK-0001", "5", stdout=StringIO())
    assert [r.getMessage() for r in caplog.records if r.name == "shop.commands"] == [
        "restock: CHK-0001: +5, 25 available."]
