"""django-mongodb-backend's compilers, with the projection of joined fields in dotted form.

For a query that joins another collection (``$lookup``), the backend
projects the joined document's fields nested::

    {"$project": {"django_content_type": {"app_label": 1, "model": 1}}}

MongoDB reads that as the dotted form below, but SecantusDB 0.7.0b3 (the
(docs/local-server-differences.md: local-server difference 9)
local server) returns the literal ``1`` for each nested inclusion, so every
permission check that joins content types failed and staff without superuser
rights got 403 in the admin. The dotted form means the same on every server::

    {"$project": {"django_content_type.app_label": 1, "django_content_type.model": 1}}

``FlatProjection.get_project_fields`` emits it; ``tests/shop/test_mongo_layer.py``
checks both the emitted form and the admin for a non-superuser.
"""

from django_mongodb_backend import compiler


def flatten_projection(fields):
    """``{"coll": {"a": 1}, "x": 1}`` -> ``{"coll.a": 1, "x": 1}``.

    Only plain sub-documents are flattened: a dict whose keys start with ``$``
    is an expression and is kept as it is.
    """
    flat = {}
    for name, value in fields.items():
        if isinstance(value, dict) and value and not any(key.startswith("$") for key in value):
            for sub, sub_value in flatten_projection(value).items():
                flat[f"{name}.{sub}"] = sub_value
        else:
            flat[name] = value
    return flat


class FlatProjection:
    """Compiler mixin: projections of joined collections in dotted form (see the module)."""

    def get_project_fields(self, columns=None, ordering=None, force_expression=False):
        return flatten_projection(super().get_project_fields(columns, ordering, force_expression))


class SQLCompiler(FlatProjection, compiler.SQLCompiler):
    pass


class SQLInsertCompiler(FlatProjection, compiler.SQLInsertCompiler):
    pass


class SQLDeleteCompiler(FlatProjection, compiler.SQLDeleteCompiler):
    pass


class SQLUpdateCompiler(FlatProjection, compiler.SQLUpdateCompiler):
    pass


class SQLAggregateCompiler(FlatProjection, compiler.SQLAggregateCompiler):
    pass
