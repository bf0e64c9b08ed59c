"""Turning raw MongoDB documents into model instances.

The managers read with raw pymongo where the sources prescribe it; this gives
their callers ordinary model instances, converted by each field exactly as
the ORM converts what it reads (embedded models, arrays, ObjectIds).
"""

from django.db import connections

# (model, field name, connection alias) -> (column, the field's read converters). The
# converters a field needs never change while the process runs; looking them up for every
# field of every document was a third of the cost of turning a listing's cards into models.
_CONVERTERS = {}


def _converters(model, field, using, connection):
    found = _CONVERTERS.get((model, field.name, using))
    if found is None:
        column = field.get_col(model._meta.db_table)
        found = (column, connection.ops.get_db_converters(column) + field.get_db_converters(connection))
        _CONVERTERS[(model, field.name, using)] = found
    return found


def model_from_document(model, document, using="default", fields=None):
    """Build a ``model`` instance from ``document`` (a dict as MongoDB stores it).

    ``fields``: the names of the fields the read projected (None: all). A
    projected field absent from the document is None (a projection of
    ``details.artist`` returns nothing when ``details`` is null); a field
    not projected is left deferred, so reading it later costs a query.
    """
    connection = connections[using]
    names, values = [], []
    for field in model._meta.concrete_fields:
        wanted = fields is None or field.name in fields or field.primary_key
        if field.column not in document and not (wanted and fields is not None):
            continue
        value = document.get(field.column)
        column, converters = _converters(model, field, using, connection)
        for convert in converters:
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
