"""``SubdocumentField``: a model field holding a free BSON subdocument, stored and read as a dict.

django-mongodb-backend's ``JSONField`` passes its value through ``json``
both ways, so a BSON date (a product's ``details.issue_date``) cannot be
stored nor read through it. This field stores the dict as pymongo encodes
it (dates stay BSON dates, ints stay ints) and reads back the dict pymongo
decodes, its top-level dates made timezone-aware (UTC, as Django's
``DateTimeField`` reads them). It keeps ``JSONField``'s lookups, so the admin may
search ``details__artist``.

The shape of what it holds is not its business: a product's ``details`` are
checked against the product's type by ``catalog.products.attributes.clean_details``.
"""

import datetime

from django.core import exceptions
from django.db import models

#: A key that django-mongodb-backend's PolymorphicEmbeddedModelField wrote into the
#: details of products stored before product types were data; read as absent.
LEGACY_LABEL = "_label"


def _aware(value):
    """``value`` with every naive datetime in it (as pymongo reads them: UTC) made aware."""
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=datetime.UTC) if value.tzinfo is None else value
    if isinstance(value, dict):
        return {key: _aware(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_aware(item) for item in value]
    return value


def as_stored(value):
    """``value`` (a datetime, or a dict or list holding some) with every aware datetime in it
    as the naive UTC datetime pymongo reads back, so that a document built for a write
    equals the one read (``Product.writes.sync``, ``Product.imports.import_products``).
    Returns a new dict or list; other values as they are."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo is None else value.astimezone(datetime.UTC).replace(tzinfo=None)
    if isinstance(value, dict):
        return {key: as_stored(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_stored(item) for item in value]
    return value


class SubdocumentField(models.JSONField):
    """A dict stored as a BSON subdocument (see the module docstring); None for none."""

    def get_internal_type(self):
        # Not "JSONField": the backend's JSON converter would json.dumps every value read.
        return "SubdocumentField"

    def db_type(self, connection):
        return "object"

    def from_db_value(self, value, expression, connection):
        if not isinstance(value, dict):
            return value
        return {key: _aware(item) for key, item in value.items() if key != LEGACY_LABEL}

    def get_prep_value(self, value):
        return value

    def get_db_prep_value(self, value, connection, prepared=False):
        return as_stored(value)

    def get_db_prep_save(self, value, connection):
        return as_stored(value)

    def validate(self, value, model_instance):
        if value is not None and not isinstance(value, dict):
            raise exceptions.ValidationError("Enter a subdocument (a dict).", code="invalid")

    def value_to_string(self, obj):
        return repr(self.value_from_object(obj))
