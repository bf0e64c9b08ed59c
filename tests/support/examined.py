"""Documents examined by the reads of a ``count_operations()`` block: the server's own
``explain`` (``executionStats``) of each ``find``, ``aggregate`` and ``count`` sent, summed.
The same on every server, whatever the machine."""

from django.db import connections

_READS = ("find", "aggregate", "count")
# What a command carries for the driver, not for the query (explain refuses some of them).
_DRIVER_FIELDS = ("lsid", "$db", "$clusterTime", "$readPreference", "txnNumber",
                  "autocommit", "startTransaction", "readConcern", "cursor")


def documents_examined(ops, collection=None):
    """``{collection: documents examined}`` over the reads of ``ops`` (an ``OperationCount``),
    or the number for ``collection`` alone."""
    database = connections["default"].database
    examined = {}
    for (name, operation), command in zip(ops.operations, ops.commands, strict=True):
        if operation not in _READS or command is None:
            continue
        query = {k: v for k, v in command.items() if k not in _DRIVER_FIELDS}
        if operation == "aggregate":
            query["cursor"] = {}
        stats = database.command("explain", query, verbosity="executionStats")
        examined[name] = examined.get(name, 0) + stats["executionStats"]["totalDocsExamined"]
    return examined if collection is None else examined.get(collection, 0)
