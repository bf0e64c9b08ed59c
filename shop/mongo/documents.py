"""Turning raw MongoDB documents into model instances.

The managers read with raw pymongo where the seeds prescribe it; this gives
their callers ordinary model instances, converted by each field exactly as
the ORM converts what it reads (embedded models, arrays, ObjectIds).
"""

from django.db import connections


def model_from_document(model, document, using="default"):
    """Build a ``model`` instance from ``document`` (a dict as MongoDB stores it).

    Fields missing from the document (a projection) are left deferred, so
    reading one of them costs a query: project what the caller will use.
    """
    connection = connections[using]
    names, values = [], []
    for field in model._meta.concrete_fields:
        if field.column not in document:
            continue
        value = document[field.column]
        column = field.get_col(model._meta.db_table)
        for convert in connection.ops.get_db_converters(column) + field.get_db_converters(connection):
            value = convert(value, column, connection)
        names.append(field.attname)
        values.append(value)
    return model.from_db(using, names, values)


def model_to_document(instance, using="default"):
    """The document ``instance`` is saved as (a dict, ``_id`` only when the pk is set).

    Each field prepares its value as the ORM does on save, so a document
    built here equals what ``instance.save()`` would store.
    """
    connection = connections[using]
    document = {}
    for field in instance._meta.concrete_fields:
        value = field.get_db_prep_save(field.pre_save(instance, True), connection=connection)
        if field.primary_key and value is None:
            continue
        document[field.column] = value
    return document
