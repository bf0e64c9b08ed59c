"""Category and product ids from request values (a query string, a form field)."""

from bson import ObjectId
from bson.errors import InvalidId


def as_object_id(value):
    """Return ``value`` as an ObjectId, or None when it is not one (never raises)."""
    if isinstance(value, ObjectId):
        return value
    try:
        return ObjectId(str(value))
    except (InvalidId, TypeError):
        return None
