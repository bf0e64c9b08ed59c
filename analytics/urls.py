"""The staff pages of analytics, under /admin/analytics/ (staff only, through the admin's login)."""

from django.contrib import admin
from django.urls import path

from . import views

app_name = "analytics"

urlpatterns = [
    path("", admin.site.admin_view(views.dashboard), name="dashboard"),
    path("reports/", admin.site.admin_view(views.reports), name="reports"),
    path("rollup/", admin.site.admin_view(views.rollup_now), name="rollup"),
]
