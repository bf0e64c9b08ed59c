"""The answer while the database cannot be reached: a 503 with ``Retry-After``, not a 500.

``DatabaseUnavailableMiddleware`` (``core.middleware``) turns a view's
"database unreachable" error into this answer; ``server_error`` (the shop's
``handler500``) does the same for such an error raised anywhere else (another
middleware, a template). Either way the local server is started again in the
background (``core.mongo.revive``), and the next request after it is back
gets the page: pymongo reconnects to the same port by itself.
"""

import logging
import sys

from django.conf import settings
from django.http import HttpResponse, HttpResponseServerError, JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.csrf import requires_csrf_token
from django.views.defaults import server_error as django_server_error

from core.mongo.revive import is_unavailable, revive_soon

logger = logging.getLogger(__name__)


def unavailable_response(request, exc=None):
    """The 503 answer (``HttpResponse``) for ``request``: JSON ``{"detail"}`` under the API's
    prefix (``/api/``), else the ``503.html`` page, with ``Retry-After`` of
    ``SHOP_UNAVAILABLE_RETRY_AFTER`` seconds and no caching. Starts the local server again
    in the background (``revive_soon``). ``exc``: the error, logged in one line."""
    retry_after = settings.SHOP_UNAVAILABLE_RETRY_AFTER
    logger.warning("Database unavailable for %s %s: %s: %s", request.method, request.path,
                   type(exc).__name__ if exc else "-", str(exc).splitlines()[0] if exc and str(exc) else "")
    revive_soon()
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": "The shop's database is unavailable; try again shortly."},
                                status=503)
    else:
        body = render_to_string("503.html", {"retry_after": retry_after, "request": request})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response


@requires_csrf_token
def server_error(request, template_name="500.html"):
    """The shop's ``handler500``: the 503 answer when the error being handled is
    "database unreachable" (``is_unavailable``), else Django's own 500 page."""
    exc = sys.exc_info()[1]
    if exc is not None and is_unavailable(exc):
        try:
            return unavailable_response(request, exc)
        except Exception:  # never let the error page itself fail
            logger.exception("The 503 page could not be rendered.")
            return HttpResponseServerError("The shop is unavailable; try again shortly.",
                                           content_type="text/plain")
    return django_server_error(request, template_name)
