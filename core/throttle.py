"""Rate limits of the shoppers' POSTs (django-ratelimit): sign-up, password reset, cart adds, checkout.

Each limited action (``settings.SHOP_RATE_LIMITS``: ``{action: "count/period"}``,
e.g. ``"5/h"``) is counted twice, per client address (``core.clientip``, the
address django-axes also uses behind the proxy) and per session, each with
its own count; a POST over either answers 429 with ``Retry-After`` (seconds
until the window ends) and the shop's 429 page, and does nothing. GETs are
never counted. Counts live in their own cache, ``RATELIMIT_USE_CACHE``
("ratelimit": a MongoDB collection all workers share, ``core.mongo.countcache``),
so the catalog's cached pages never evict them and every worker counts together.
Clients are counted as ``core.clientip.client_key`` names them (an IPv6 /64 is one).
"""

import functools

from django.conf import settings
from django.shortcuts import render
from django_ratelimit.core import get_usage

from core.clientip import client_key


def _by_address(group, request):
    return client_key(request) or "unknown"


def _by_session(group, request):
    session = getattr(request, "session", None)
    return (session.session_key if session is not None else None) or ""


KEYS = (("address", _by_address), ("session", _by_session))


def over_limit(request, action):
    """Count this POST of ``action`` (a key of ``SHOP_RATE_LIMITS``) and return the seconds
    (int, >= 1) until the client may try again when it is over a limit, else None.

    Per client address and per session (a request without a session is counted by
    address only). Raises ``KeyError`` for an action without a limit.
    """
    rate = settings.SHOP_RATE_LIMITS[action]
    wait = None
    for name, key in KEYS:
        if name == "session" and not _by_session(action, request):
            continue
        usage = get_usage(request, group=f"shop.{action}.{name}", key=key, rate=rate,
                          method="POST", increment=True)
        if usage is not None and usage["should_limit"]:
            wait = max(wait or 1, usage["time_left"])
    return wait


def wording(seconds):
    """``"1 hour"``, ``"5 minutes"``, ``"30 seconds"``: ``seconds`` (int) in the largest whole unit
    that is at least 2 of it (rounded up), for the 429 page."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 2 * size or seconds == size:
            count = -(-seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def too_many_requests(request, wait, login=False):
    """The shop's 429 page (``templates/429.html``) with ``Retry-After: wait`` (seconds);
    ``login``: worded for a locked-out log-in (django-axes, ``core.loginlimits``)."""
    response = render(request, "429.html", {"wait": wording(wait), "login": login}, status=429)
    response["Retry-After"] = str(wait)
    return response


def throttled(action):
    """View decorator: a POST over ``action``'s limits answers ``too_many_requests`` instead
    of reaching the view (nothing changes); other requests pass untouched."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method == "POST" and getattr(settings, "RATELIMIT_ENABLE", True):
                wait = over_limit(request, action)
                if wait is not None:
                    return too_many_requests(request, wait)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
