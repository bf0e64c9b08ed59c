"""The shop's admin site: Django's, with the pages an app serves itself listed under its heading.

An app whose staff pages are views of its own rather than ModelAdmins (the
sales dashboard and reports of ``analytics``) names them on its AppConfig::

    admin_pages = [("Sales dashboard", "analytics:dashboard"), ...]

and the admin index (and the admin's navigation sidebar) lists them first in
that app's box, each with a "View" link. Installed through
``MongoAdminConfig.default_site`` (Django's documented way to replace the
default site), so ``admin.site`` is this site.
"""

from django.apps import apps
from django.contrib import admin
from django.urls import reverse


class ShopAdminSite(admin.AdminSite):
    """``admin.site``: adds each app's ``admin_pages`` to its entry in the app list."""

    def get_app_list(self, request, app_label=None):
        """Django's app list (only the apps the user may see), each app's own pages first.

        Returns Django's list of app dicts; a page is a model-like dict
        ``{name, object_name, admin_url, add_url: None, view_only: True}``.
        """
        app_list = super().get_app_list(request, app_label)
        for app in app_list:
            config = apps.get_app_config(app["app_label"])
            pages = [
                {"name": name, "object_name": url_name.rsplit(":", 1)[-1], "admin_url": reverse(url_name),
                 "add_url": None, "view_only": True, "perms": {"view": True}}
                for name, url_name in getattr(config, "admin_pages", ())
            ]
            app["models"] = pages + app["models"]
        return app_list
