"""Embedded models have no collection of their own.

An ``EmbeddedModel`` (a product's ``pricing``, a cart's lines, an order's
address...) lives inside its parent's documents. The shop's migrations were
written without ``bases=(EmbeddedModel,)`` on those models' ``CreateModel``,
so migrate created an empty collection for each (``catalog_track``,
``inventory_cartline``, ``orders_orderline``...), never written. The schema
editor (``core.mongo.schema``) now skips them by the current model's class,
and migration ``shop/migrations/0001`` drops the empty ones that databases
migrated before already have.
"""

from django.apps import apps as global_apps


def _embedded_model_class():
    # Imported late: django_mongodb_backend.models imports the database backend, which
    # imports this module's users (core.mongo.schema).
    from django_mongodb_backend.models import EmbeddedModel

    return EmbeddedModel


def is_embedded(model):
    """True when ``model`` (a model class, historical ones included) is an ``EmbeddedModel``
    in the current code."""
    EmbeddedModel = _embedded_model_class()
    if issubclass(model, EmbeddedModel):
        return True
    try:
        current = global_apps.get_model(model._meta.app_label, model._meta.model_name)
    except LookupError:
        return False
    return issubclass(current, EmbeddedModel)


def embedded_collection_names():
    """The collection names (``db_table``) of every installed embedded model: a set of str."""
    EmbeddedModel = _embedded_model_class()
    return {model._meta.db_table for model in global_apps.get_models() if issubclass(model, EmbeddedModel)}


def drop_empty_embedded_collections(database):
    """Drop each embedded model's collection in ``database`` (a pymongo ``Database``) that
    holds no document; a collection holding documents is left alone.

    Returns ``(dropped, kept)``: sorted lists of collection names.
    """
    dropped, kept = [], []
    existing = set(database.list_collection_names())
    for name in sorted(embedded_collection_names() & existing):
        if database[name].find_one({}, {"_id": 1}) is None:
            database.drop_collection(name)
            dropped.append(name)
        else:
            kept.append(name)
    return dropped, kept
