"""URLs of the shop."""

from django.contrib import admin
from django.urls import include, path

from api.views import api
from shop.health import healthz

urlpatterns = [
    path("admin/analytics/", include("analytics.urls")),  # before the admin: its app index
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/v1/", api.urls),
    path("", include("inventory.urls")),
    path("", include("catalog.urls")),
]
