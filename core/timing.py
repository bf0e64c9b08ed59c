"""Server-Timing: how long a request waited on an outside service, told to whoever measures.

A load test of the shop through the local Stripe (localstripe) measures two
things at once: the shop's own work, and the fake Stripe's, which slows as its
state grows (it rewrites its whole state file on every change). Stripe itself
does not slow with an account's history, so a benchmark judges the shop on its
own time: the response time minus the time spent waiting on Stripe.

``waiting_on("stripe")`` wraps each call to an outside service and adds its
wall time to the current request's total for that name. With
``SHOP_SERVER_TIMING`` on (off by default: timings tell an outsider something
about the server), ``ServerTimingMiddleware`` sends the totals in the
standard ``Server-Timing`` response header, e.g. ``stripe;dur=41.7`` (ms).
Outside a request the totals are not kept.
"""

import contextlib
import contextvars
import time

from django.conf import settings

# The current request's totals, {name: seconds}; None outside a request.
_waits = contextvars.ContextVar("server_timing_waits", default=None)


@contextlib.contextmanager
def waiting_on(name):
    """Add the wall time of the ``with`` block to the current request's total for ``name``
    (a token such as ``"stripe"``); nothing outside a request. Exceptions pass through."""
    waits = _waits.get()
    started = time.perf_counter()
    try:
        yield
    finally:
        if waits is not None:
            waits[name] = waits.get(name, 0.0) + time.perf_counter() - started


def header_value(waits):
    """``"stripe;dur=41.7"``: the ``Server-Timing`` value of ``{name: seconds}``, in ms, names sorted."""
    return ", ".join(f"{name};dur={seconds * 1000:.1f}" for name, seconds in sorted(waits.items()))


class ServerTimingMiddleware:
    """Keep the request's waits (``waiting_on``) and, with ``SHOP_SERVER_TIMING`` on, send them
    in the ``Server-Timing`` header of a response that waited on anything."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        waits = {}
        token = _waits.set(waits)
        try:
            response = self.get_response(request)
        finally:
            _waits.reset(token)
        if waits and settings.SHOP_SERVER_TIMING:
            response["Server-Timing"] = header_value(waits)
        return response
