"""Every API answer: JSON with ``ETag`` and ``Cache-Control``, 304 for a matching
``If-None-Match``.

The ETag is a hash of the answer's bytes, so it changes exactly when the
answer does. Successful answers may be reused for ``settings.API_CACHE_SECONDS``
(``public, max-age=N``); errors are ``no-cache`` (revalidate before reuse).
"""

import functools
import hashlib
import json

from django.conf import settings
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control


def answer(request, data, status=200):
    """An ``HttpResponse`` holding ``data`` (JSON-ready Python) as JSON, through ``cacheable``."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return cacheable(request, HttpResponse(body, status=status, content_type="application/json"))


def cacheable(request, response):
    """``response`` with an ETag (a hash of its bytes) and Cache-Control, or a 304 Not
    Modified when a 200 answer matches the request's ``If-None-Match`` (weak comparison,
    as RFC 9110 asks for GET)."""
    response["ETag"] = f'"{hashlib.blake2b(response.content, digest_size=16).hexdigest()}"'
    if response.status_code == 200:
        patch_cache_control(response, public=True, max_age=settings.API_CACHE_SECONDS)
        return get_conditional_response(request, etag=response["ETag"], response=response)
    patch_cache_control(response, no_cache=True)
    return response


def with_cache_headers(view):
    """Decorate a view (the OpenAPI schema, the docs page) to answer through ``cacheable``."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        return cacheable(request, view(request, *args, **kwargs))

    return wrapper


def error(request, status, detail, **fields):
    """An error answer: ``{"detail": message, ...fields}`` with ``status``."""
    return answer(request, {"detail": detail, **fields}, status=status)
