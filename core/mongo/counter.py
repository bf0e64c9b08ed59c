"""Counting database round trips: pymongo command monitoring, the same on every server.

Tests assert how many round trips a page or an action costs (a figure that
does not depend on the machine, unlike a timing)::

    with count_operations() as ops:
        client.get("/c/rock/")
    assert ops.total <= 3

Every command pymongo sends is seen through its command monitoring
(``CommandCounter`` is registered on the client by the backend), on the
local server and on any MongoDB alike. Counting covers every thread of the
process while the block is open, or only the thread that opened it
(``count_operations(this_thread=True)``: a test's own request through Django's
test client, not a webhook another thread answers meanwhile). pymongo calls its
listeners in the thread that sends the command, so the thread is known.
"""

import threading
from contextlib import contextmanager

from pymongo import monitoring

# Commands a driver sends on its own (handshakes, authentication, session
# clean-up): not round trips the shop's code asked for.
_DRIVER_COMMANDS = frozenset(
    {"hello", "ismaster", "isMaster", "saslStart", "saslContinue", "endSessions", "killCursors"}
)

# The write commands.
WRITE_OPERATIONS = frozenset({"insert", "update", "delete", "findAndModify"})

_lock = threading.Lock()
_active = []


class OperationCount:
    """The round trips seen while a ``count_operations()`` block was open.

    ``operations`` is a list of ``(collection, operation)`` pairs in order;
    ``total``, ``writes`` and ``reads`` are their counts. ``commands`` holds
    the command documents sent, in the same order (for an ``explain`` of each:
    ``tests/support/examined.py``). ``modified`` maps a collection's name to
    the documents its updates changed (the server's ``nModified``): what an
    ``update_many`` costs grows with it, not with its one round trip.
    """

    def __init__(self, thread=None):
        self.thread = thread  # a thread's ident: count only its round trips; None: every thread's
        self.operations = []
        self.statements = []  # per operation: the writes it carries (a bulk write's count), else 1
        self.commands = []  # per operation: the command document sent, or None
        self.modified = {}  # collection name: documents the updates changed (the replies' nModified)

    @property
    def write_statements(self):
        """The single-document writes sent: a ``bulk_write`` of 300 updates counts 300."""
        return sum(n for (_, op), n in zip(self.operations, self.statements) if op in WRITE_OPERATIONS)

    @property
    def total(self):
        return len(self.operations)

    @property
    def writes(self):
        return sum(1 for _, op in self.operations if op in WRITE_OPERATIONS)

    @property
    def reads(self):
        return self.total - self.writes

    def __repr__(self):
        return f"<OperationCount {self.total}: {self.operations!r}>"


@contextmanager
def count_operations(this_thread=False):
    """Count the database round trips made inside the block: by every thread of the process,
    or with ``this_thread`` only by the thread opening the block.

    Yields an ``OperationCount`` that fills while the block runs.
    """
    count = OperationCount(threading.get_ident() if this_thread else None)
    with _lock:
        _active.append(count)
    try:
        yield count
    finally:
        with _lock:
            _active.remove(count)


def record(collection, operation, statements=1, command=None):
    """Record one round trip (``collection`` name, ``operation`` name, carrying ``statements``
    writes, and the command document sent, or None) in every open count."""
    if not _active:
        return
    thread = threading.get_ident()
    with _lock:
        for count in _active:
            if count.thread is not None and count.thread != thread:
                continue
            count.operations.append((collection, operation))
            count.statements.append(statements)
            count.commands.append(command)


def record_modified(collection, documents):
    """Record that an update on ``collection`` (name) changed ``documents`` (int) in every open count."""
    if not _active:
        return
    thread = threading.get_ident()
    with _lock:
        for count in _active:
            if count.thread is not None and count.thread != thread:
                continue
            count.modified[collection] = count.modified.get(collection, 0) + documents


class CommandCounter(monitoring.CommandListener):
    """pymongo command listener feeding ``record()`` (and ``record_modified()`` from the
    replies of updates sent while a count is open)."""

    def __init__(self):
        self._updates = {}  # request id: collection name, of the updates in flight while counting

    def started(self, event):
        name = event.command_name
        if name in _DRIVER_COMMANDS:
            return
        target = event.command.get(name)
        if name == "update" and _active:
            self._updates[event.request_id] = target
        batch = next((event.command[key] for key in ("updates", "documents", "deletes") if key in event.command), None)
        record(target if isinstance(target, str) else "$cmd", name, len(batch) if isinstance(batch, list) else 1,
               dict(event.command) if _active else None)

    def succeeded(self, event):
        collection = self._updates.pop(event.request_id, None) if self._updates else None
        if collection is not None:
            record_modified(collection, int(event.reply.get("nModified", 0)))

    def failed(self, event):
        if self._updates:
            self._updates.pop(event.request_id, None)
