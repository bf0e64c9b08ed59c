"""Request logging (one line per request with method, path, status and duration), and the
503 answer while the database cannot be reached."""

import logging
import time

from core.mongo.revive import is_unavailable
from core.unavailable import unavailable_response

logger = logging.getLogger("shop.requests")


class RequestLogMiddleware:
    """Log ``METHOD /path STATUS DURATIONms`` on the ``shop.requests`` logger, at INFO.

    First in ``MIDDLEWARE`` so that the line covers every answer, redirects
    and error pages included (Django turns a view's exception into a 500
    response before it reaches this middleware; ``django.request`` logs its
    stack trace). Duration is wall time in milliseconds. Query strings are
    left out of the line: they may carry what shoppers typed.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        duration_ms = (time.perf_counter() - started) * 1000
        logger.info(
            "%s %s %s %.1fms", request.method, request.path, response.status_code, duration_ms,
            extra={"status_code": response.status_code, "duration_ms": duration_ms},
        )
        return response


class DatabaseUnavailableMiddleware:
    """A view that fails because the database cannot be reached (``is_unavailable``) answers
    503 with ``Retry-After`` (``core.unavailable``), in the shop's look or as JSON under
    ``/api/``, instead of a 500; the local server is started again in the background.

    Works in DEBUG too (Django's technical 500 page would otherwise show). Errors raised
    outside a view (another middleware) reach the shop's ``handler500``, which does the same.
    Other errors pass on untouched.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        """``unavailable_response`` for "database unreachable" errors, else None (Django goes on)."""
        if is_unavailable(exception):
            return unavailable_response(request, exception)
        return None
