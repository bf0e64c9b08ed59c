"""URLs of the shop."""

from django.contrib import admin
from django.urls import include, path

from shop.health import healthz

urlpatterns = [
    path("admin/analytics/", include("analytics.urls")),  # before the admin: its app index
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("", include("inventory.urls")),
    path("", include("orders.urls")),
    path("account/", include("accounts.urls")),
    path("", include("catalog.urls")),
]
