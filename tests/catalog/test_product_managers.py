"""The products' managers, one per job (``docs/architecture.md``, "Managers are raw pymongo").

``Product.objects`` is Django's default manager (the admin and forms use it); the other
jobs are managers of their own on the model, none inheriting another's methods.
"""

from django.contrib import admin
from django.db import models

from catalog.models import Product
from core.mongo.collections import MongoCollectionMixin
from catalog.listings.facet_parts import FacetPartsMixin
from catalog.store.subdocument_reads import SubdocumentMixin

#: Each manager's name on ``Product`` and the job its module docstring names.
MANAGERS = ("objects", "listings", "search", "facets", "writes", "imports", "exports", "reports")
#: The mixins a manager may take besides ``MongoCollectionMixin``: each of its own job
#: (reads by path for ``Product.objects``, the counts kept per issue decade for ``Product.facets``).
SAME_JOB_MIXINS = {"objects": {SubdocumentMixin}, "facets": {FacetPartsMixin}}


def _public_methods(manager_class):
    """The public methods a manager class defines itself or takes from a shop mixin (not
    Django's ``Manager`` / ``QuerySet`` ones)."""
    names = set()
    for klass in manager_class.__mro__:
        if klass.__module__.startswith(("django.", "builtins")) or klass is MongoCollectionMixin:
            continue
        names.update(name for name, value in vars(klass).items() if callable(value) and not name.startswith("_"))
    return names


def test_objects_is_the_default_manager_that_the_admin_and_forms_use():
    assert [m.name for m in Product._meta.managers] == list(MANAGERS)
    assert Product._meta.default_manager is Product.objects
    assert type(Product._default_manager).__name__ == "ProductManager"
    assert admin.site._registry[Product].get_queryset(None).model is Product


def test_each_manager_takes_no_other_jobs_methods():
    for name in MANAGERS:
        manager_class = type(getattr(Product, name))
        bases = set(manager_class.__mro__[1:]) - set(models.Manager.__mro__) - {MongoCollectionMixin}
        bases = {b for b in bases if not b.__module__.startswith("django.")}
        assert bases <= SAME_JOB_MIXINS.get(name, set()), (name, bases)
        assert issubclass(manager_class, MongoCollectionMixin), name


def test_no_method_is_on_two_managers():
    seen = {}
    for name in MANAGERS:
        for method in _public_methods(type(getattr(Product, name))):
            assert method not in seen, f"{method} on Product.{seen[method]} and Product.{name}"
            seen[method] = name
    # The split of the one manager of before: every method has one home.
    assert seen["get_by_sku"] == "objects" and seen["listing"] == "listings" and seen["suggest"] == "search"
    assert seen["facet_counts"] == "facets" and seen["sync"] == "writes" and seen["import_prices"] == "imports"
    assert seen["for_export"] == "exports" and seen["count_by_category_list"] == "reports"
