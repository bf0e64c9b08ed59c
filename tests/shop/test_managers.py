"""Managers with one job each (``docs/architecture.md``, "Managers are raw pymongo").

``objects`` is each model's default manager (the admin and forms use it); the other jobs are
managers of their own on the model, none inheriting another's methods: a manager that needs
another's calls it through the model.
"""

import pytest
from django.contrib import admin
from django.db import models

from catalog.listings.deals import DealsMixin
from catalog.listings.facet_parts import FacetPartsMixin
from catalog.models import Category, Product
from catalog.store.subdocument_reads import SubdocumentMixin
from core.mongo.collections import MongoCollectionMixin
from inventory.models import Cart, Inventory

#: Each model's managers, in the order declared (``objects`` first: Django's default).
MANAGERS = {
    Product: ("objects", "listings", "search", "facets", "writes", "imports", "exports", "reports"),
    Category: ("objects", "writes"),
    Cart: ("objects", "expiry", "retention"),
    Inventory: ("objects", "cleanup", "returns"),
}
#: The mixins a manager may take besides ``MongoCollectionMixin``, each of its own job: reads
#: by path for the reads of products and categories, the counts kept per issue decade for
#: the facets, the deals' counts and pages for the listings.
SAME_JOB_MIXINS = {(Product, "objects"): {SubdocumentMixin}, (Category, "objects"): {SubdocumentMixin},
                   (Product, "facets"): {FacetPartsMixin}, (Product, "listings"): {DealsMixin}}


def _shop_classes(manager_class):
    """The classes of ``manager_class``'s MRO that are the shop's (not Django's, not the kernel's mixin)."""
    return [k for k in manager_class.__mro__
            if not k.__module__.startswith(("django.", "builtins")) and k is not MongoCollectionMixin]


def _public_methods(manager_class):
    """The public methods a manager class defines itself or takes from a shop mixin."""
    return {name for klass in _shop_classes(manager_class) for name, value in vars(klass).items()
            if callable(value) and not name.startswith("_")}


@pytest.mark.parametrize("model", MANAGERS, ids=lambda m: m.__name__)
def test_objects_is_the_default_manager_that_the_admin_uses(model):
    assert tuple(m.name for m in model._meta.managers) == MANAGERS[model]
    assert model._meta.default_manager is model.objects
    assert admin.site._registry[model].get_queryset(None).model is model


@pytest.mark.parametrize("model", MANAGERS, ids=lambda m: m.__name__)
def test_each_manager_takes_no_other_jobs_methods(model):
    for name in MANAGERS[model]:
        manager_class = type(getattr(model, name))
        assert issubclass(manager_class, models.Manager) and issubclass(manager_class, MongoCollectionMixin), name
        mixins = set(_shop_classes(manager_class)) - {manager_class}
        assert mixins <= SAME_JOB_MIXINS.get((model, name), set()), (name, mixins)


@pytest.mark.parametrize("model", MANAGERS, ids=lambda m: m.__name__)
def test_no_method_is_on_two_managers_of_a_model(model):
    seen = {}
    for name in MANAGERS[model]:
        for method in _public_methods(type(getattr(model, name))):
            assert method not in seen, f"{method} on {model.__name__}.{seen[method]} and .{name}"
            seen[method] = name


def test_the_split_managers_hold_their_jobs():
    """Where each job of the one manager of before went."""
    assert {m: getattr(Product, m).__class__.__name__ for m in ("objects", "listings", "facets")} == {
        "objects": "ProductManager", "listings": "ListingManager", "facets": "FacetManager"}
    for model, manager, method in [
        (Product, "objects", "get_by_sku"), (Product, "objects", "checkout_facts"), (Product, "listings", "listing"),
        (Product, "listings", "with_availability"), (Product, "search", "suggest"), (Product, "facets", "facet_counts"),
        (Product, "writes", "sync"), (Product, "imports", "import_prices"), (Product, "exports", "for_export"),
        (Product, "reports", "count_by_category_list"), (Category, "writes", "move"), (Category, "objects", "get_by_slug"),
        (Cart, "expiry", "expire"), (Cart, "retention", "purge"), (Cart, "objects", "add_item"),
        (Inventory, "cleanup", "cleanup"), (Inventory, "returns", "return_reservations"), (Inventory, "objects", "reserve"),
    ]:
        assert callable(getattr(getattr(model, manager), method)), (model, manager, method)
        others = [m for m in MANAGERS[model] if m != manager and hasattr(getattr(model, m), method)]
        assert others == [], (model, method, others)
