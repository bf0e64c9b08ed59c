"""A write the shop retries itself when the connection drops, knowing whether it was applied.

On the local SecantusDB server the shop connects with ``retryWrites=false``
(docs/local-server-differences.md: local-server difference 4)
(``serverprocess.uri_for``): that server prunes its retryable-write records
with a scan and a sort on every write, so after 10,000 retryable writes in
30 minutes every write cost about 20 ms instead of 1 (docs/local-server.md).
Without the driver's retry, a connection that drops while a write is in
flight raises ``AutoReconnect`` and leaves the write applied or not: the
caller cannot tell. The writes whose outcome matters (the payment ledger, a
cart's checkout lock, the reservations, an order's status) go through
``write_once``: after a drop it asks the caller's ``applied()`` (a read of
the document: does it carry what this very write set, such as its
timestamp, idempotency key or lease?) and only runs the write again when it
was not applied. On a server with retryable writes the driver retries first;
this is the same answer on every server.
"""

import datetime

from pymongo.errors import AutoReconnect

from core import clock

#: Tries of one write (the first and the retries after a dropped connection).
ATTEMPTS = 3


def write_once(write, applied, attempts=ATTEMPTS):
    """Run ``write()`` (a callable doing one conditional write, returning its result); when the
    connection drops during it (pymongo ``AutoReconnect``: reset, timeout, primary gone), call
    ``applied()``: a truthy value means the dropped write did take effect and is returned
    instead; otherwise the write runs again, at most ``attempts`` times in all.

    ``applied`` must recognise this write's own effect (a value only it sets), so
    that a write lost in flight is neither applied twice nor reported as refused.
    Raises the last ``AutoReconnect`` when every try dropped (or ``applied()`` itself
    could not reach the server).
    """
    for attempt in range(attempts):
        try:
            return write()
        except AutoReconnect:
            if attempt == attempts - 1:
                raise
            done = applied()
            if done:
                return done
    raise AssertionError("unreachable")


def carries(document, fields):
    """True when ``document`` (a raw document as read, or None) has every value of ``fields``
    (a dict of top-level fields): how ``applied()`` recognises a write's own ``$set``.
    Datetimes compare in UTC whether read back naive or aware (``core.clock``)."""
    if document is None:
        return False
    for name, value in fields.items():
        found = document.get(name)
        if isinstance(value, datetime.datetime) and isinstance(found, datetime.datetime):
            if clock.aware(found) != clock.aware(value):
                return False
        elif found != value:
            return False
    return True
