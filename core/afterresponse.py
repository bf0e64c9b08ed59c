"""Work a request starts but its answer must not wait for: run once the response is sent.

Password reset and sign-up answer the same page whether or not the address
has an account; only an account gets an e-mail. Rendering and sending that
e-mail inside the request made the answer slower for an existing address
(about 3 ms with the local mail backend, more with a real mail server), which
tells an attacker which addresses have accounts. ``after_response(fn)`` keeps
``fn`` until Django's ``request_finished`` signal, which the WSGI server
fires when it closes the response, after the body has been written to the
client; outside a request (a command, a test calling the function) ``fn``
runs at once.

Each thread (a worker serves one request per thread) keeps its own list. A
failing ``fn`` is logged and does not stop the others.
"""

import logging
import threading

from django.core.signals import request_finished, request_started

logger = logging.getLogger(__name__)
_state = threading.local()


def after_response(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` once the current response has been sent, or now outside a
    request. Returns None; ``fn``'s errors are logged, never raised to the caller."""
    pending = getattr(_state, "pending", None)
    if pending is None:
        fn(*args, **kwargs)
    else:
        pending.append((fn, args, kwargs))


def _request_started(**kwargs):
    _state.pending = []


def _request_finished(**kwargs):
    pending, _state.pending = getattr(_state, "pending", None), None
    for fn, args, kwargs in pending or ():
        try:
            fn(*args, **kwargs)
        except Exception:  # one failing e-mail must not stop the others (or the worker)
            logger.exception("Work after the response failed: %s", getattr(fn, "__qualname__", fn))


request_started.connect(_request_started, dispatch_uid="core.afterresponse.started")
request_finished.connect(_request_finished, dispatch_uid="core.afterresponse.finished")
