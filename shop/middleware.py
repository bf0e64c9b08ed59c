"""Request logging: one line per request with method, path, status and duration."""

import logging
import time

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
