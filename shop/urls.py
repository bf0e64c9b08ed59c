"""URLs of the shop."""

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.static import serve

from api.responses import error
from api.views import api
from shop.health import healthz


def media(request, path):
    """Uploaded files from MEDIA_ROOT, when ``SHOP_SERVE_MEDIA`` is on (development and
    tests); 404 otherwise, where the web server or the storage serves MEDIA_URL."""
    if not settings.SHOP_SERVE_MEDIA:
        raise Http404("Media are not served here.")
    return serve(request, path, document_root=settings.MEDIA_ROOT)


def _debug_toolbar_urls():
    from debug_toolbar.toolbar import debug_toolbar_urls

    return debug_toolbar_urls()


def favicon(request):
    """``/favicon.ico``, which browsers and crawlers ask for: a permanent redirect to the
    icon's static URL (hashed and cached for a year under the manifest storage)."""
    return HttpResponsePermanentRedirect(static("shop/favicon.ico"))


# A "database unreachable" error raised outside a view answers 503, not 500 (core.unavailable).
def api_not_found(request):
    """Any URL under ``/api/`` that no API route takes (one ending in a newline, which the
    API's own catch-all ``.+`` does not match; ``/api/`` itself): a JSON 404, as the API's."""
    return error(request, 404, "No such API endpoint: see /api/v1/docs.")


handler500 = "core.unavailable.server_error"
# A session that ended while the request ran (SessionInterrupted) gets its own page.
handler400 = "core.sessions.bad_request"

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/analytics/", include("analytics.urls")),  # before the admin: its app index
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/v1/", api.urls),
    re_path(r"^api/", api_not_found),
    path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", media, name="media"),
    *(_debug_toolbar_urls() if settings.SHOP_DEBUG_TOOLBAR else []),
    path("", include("inventory.urls")),
    path("", include("orders.urls")),
    path("account/", include("accounts.urls")),
    path("", include("content.urls")),  # before the catalog's: the home page falls back to its
    path("", include("catalog.urls")),
]
