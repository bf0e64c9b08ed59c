"""The debug toolbar's MQL panel, fed by pymongo's command monitoring (DEBUG only).

django-mongodb-extensions' ``MQLPanel`` logs what goes through
``connection.get_collection()``'s wrapper, which times only the methods the
ORM uses (``aggregate``, ``insert_many``, ``update_many``...). The shop's
managers call ``find_one``, ``find_one_and_update``, ``bulk_write`` and
read-preference copies (``with_options``) that bypass it. So this panel keeps
MQLPanel's page (and its Query and Explain buttons for aggregations) but takes
its entries from a pymongo ``CommandListener``: every command the request's
thread sends, ORM and raw managers alike, with the server's round-trip time
(milliseconds) and the Python stack that sent it.

``shop.settings`` enables it when ``DJANGO_DEBUG`` is on and
django-debug-toolbar is installed (``SHOP_DEBUG_TOOLBAR``); ``ShopConfig.ready``
registers the listener before any client exists. Never in production
settings nor in the tests (``DEBUG`` is off there).
"""

import threading

from bson import json_util
from debug_toolbar.utils import get_stack_trace, get_template_info
from django.db import connections
from django_mongodb_extensions.mql_panel.panel import MQLPanel
from pymongo import monitoring

# Commands the driver sends on its own, and fields it adds to every command.
_DRIVER_COMMANDS = frozenset({"hello", "ismaster", "isMaster", "saslStart", "saslContinue",
                              "endSessions", "killCursors", "ping", "buildInfo"})
_DRIVER_FIELDS = frozenset({"lsid", "$db", "$clusterTime", "$readPreference", "txnNumber",
                            "autocommit", "startTransaction", "apiVersion", "$readConcern"})

_current = threading.local()


class MongoCommandsPanel(MQLPanel):
    """MQLPanel listing every MongoDB command of the request (see the module's docstring)."""

    title = "MongoDB commands"

    def enable_instrumentation(self):
        """Start receiving this thread's commands (not through get_collection's wrapper)."""
        _current.panel = self
        _current.pending = {}

    def disable_instrumentation(self):
        _current.panel = None
        _current.pending = {}


def _alias(database_name):
    """The Django alias of the connection to ``database_name`` (``"default"`` if none matches)."""
    for connection in connections.all(initialized_only=True):
        if connection.settings_dict.get("NAME") == database_name:
            return connection.alias
    return "default"


class ToolbarCommandListener(monitoring.CommandListener):
    """Hands each command of a thread whose toolbar panel is on to that panel."""

    def started(self, event):
        panel = getattr(_current, "panel", None)
        if panel is None or event.command_name in _DRIVER_COMMANDS:
            return
        name = event.command_name
        target = event.command.get(name)
        collection = target if isinstance(target, str) else ""
        body = {k: v for k, v in event.command.items() if k not in _DRIVER_FIELDS}
        # The Query and Explain buttons re-run an aggregation as collection.aggregate(pipeline).
        args = [body.get("pipeline", [])] if name == "aggregate" else [body]
        _current.pending[event.request_id] = dict(
            alias=_alias(event.database_name),
            mql=f"db.{collection or event.database_name}.{name}({json_util.dumps(body)})",
            stacktrace=get_stack_trace(skip=1),
            template_info=get_template_info(),
            mql_collection=collection,
            mql_operation=name,
            mql_args_json=json_util.dumps(args),
        )

    def _finish(self, event):
        panel = getattr(_current, "panel", None)
        entry = getattr(_current, "pending", {}).pop(event.request_id, None)
        if panel is not None and entry is not None:
            panel.record(duration=event.duration_micros / 1000, **entry)

    def succeeded(self, event):
        self._finish(event)

    def failed(self, event):
        self._finish(event)


def register():
    """Register the listener for every pymongo client created from now on (call once)."""
    monitoring.register(ToolbarCommandListener())
