"""The staff pages of analytics, under /admin/analytics/: staff only (through the admin's login),
with a permission: viewing the rollups (``analytics.view_rollupprogress``) for the dashboard and
the reports, changing them (``analytics.change_rollupprogress``) for a rollup; 403 without."""

from django.contrib import admin
from django.contrib.auth.decorators import permission_required
from django.urls import path

from . import views

app_name = "analytics"

VIEW = "analytics.view_rollupprogress"
ROLL_UP = "analytics.change_rollupprogress"


def staff_page(view, permission):
    """``view`` behind the admin's login and ``permission`` (the shop's 403 page without it)."""
    return admin.site.admin_view(permission_required(permission, raise_exception=True)(view))


urlpatterns = [
    path("", staff_page(views.dashboard, VIEW), name="dashboard"),
    path("reports/", staff_page(views.reports, VIEW), name="reports"),
    path("rollup/", staff_page(views.rollup_now, ROLL_UP), name="rollup"),
]
